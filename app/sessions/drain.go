package sessions

import (
	"context"
	"errors"

	"engram/domain/session"
	"engram/ports"
)

// drainAttempts bounds the compare-and-swap retries of one session: each retry
// means the session changed between read and write, which a few turns of a live
// session can do, but not for long.
const drainAttempts = 5

// drain moves up to DrainBatch sessions from the secondary into the primary. It
// returns how many moved and how many it saw left (0: the secondary is empty).
func (f *Failover) drain(ctx context.Context) (moved, remaining int, err error) {
	refs, err := f.secondary.SessionRefs(ctx, f.opts.DrainBatch)
	if err != nil || len(refs) == 0 {
		return 0, 0, err
	}
	for _, ref := range refs {
		done, err := f.move(ctx, ref)
		if err != nil {
			return moved, len(refs) - moved, err
		}
		if done {
			moved++
		}
	}
	return moved, len(refs) - moved, nil
}

// move merges one session of the secondary into the primary and removes it from
// the secondary. A crash between the two steps leaves it in both; the next drain
// merges it again, and the merge keeps each message once.
func (f *Failover) move(ctx context.Context, ref session.Ref) (bool, error) {
	for range drainAttempts {
		src, err := f.secondary.ExportSession(ctx, ref)
		if errors.Is(err, ports.ErrNotFound) {
			return true, nil // expired or deleted meanwhile
		}
		if err != nil {
			return false, err
		}
		dst, err := f.primary.ExportSession(ctx, ref)
		if err != nil && !errors.Is(err, ports.ErrNotFound) {
			return false, err
		}
		merged := session.MergeStates(dst, src)
		merged.Meta.Ref = ref
		if err := f.primary.ReplaceSession(ctx, merged, dst.Rev); errors.Is(err, ports.ErrConflict) {
			continue
		} else if err != nil {
			return false, err
		}
		switch err := f.secondary.RemoveSession(ctx, ref, src.Rev); {
		case err == nil, errors.Is(err, ports.ErrNotFound):
			return true, nil
		case !errors.Is(err, ports.ErrConflict):
			return false, err
		}
	}
	return false, nil // still changing; the next drain tries again
}

package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"engram/domain/session"
	"engram/ports"
)

// ClaimFolds claims due sessions with the claim script, then reads them whole in
// one pipelined round trip.
func (s *Store) ClaimFolds(ctx context.Context, cl ports.FoldClaim) ([]session.View, error) {
	if cl.Holder == "" || cl.Lease <= 0 || cl.Limit <= 0 {
		return nil, errors.New("redisstore: claim folds: a holder, a positive lease and a limit are required")
	}
	c, err := s.conn()
	if err != nil {
		return nil, err
	}
	// The claim key only has to outlive its lease; the lease itself is the time
	// stored in it, compared with the callers' clocks.
	members, err := scriptClaim.Exec(ctx, c, []string{s.foldsKey()},
		[]string{micros(cl.Now), micros(cl.Now.Add(cl.Lease)), cl.Holder, strconv.Itoa(cl.Limit), s.prefix,
			ms(2*cl.Lease + time.Minute)}).AsStrSlice()
	if err != nil {
		return nil, wrapErr("claim folds", err)
	}
	refs := make([]session.Ref, 0, len(members))
	for _, m := range members {
		ref, err := refFromFoldMember(m)
		if err != nil {
			return nil, err
		}
		refs = append(refs, ref)
	}
	return s.readAll(ctx, c, refs)
}

// readAll reads whole sessions in one round trip; a session that is gone comes
// back empty with its ref.
func (s *Store) readAll(ctx context.Context, c rueidis.Client, refs []session.Ref) ([]session.View, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	execs := make([]rueidis.LuaExec, len(refs))
	for i, ref := range refs {
		k := s.keys(ref)
		execs[i] = rueidis.LuaExec{Keys: []string{k.messages, k.meta, k.summary, k.exchanges}, Args: []string{"0", "0"}}
	}
	out := make([]session.View, len(refs))
	for i, res := range scriptRead.ExecMulti(ctx, c, execs...) {
		arr, err := res.ToArray()
		if err != nil {
			return nil, wrapErr("read session", err)
		}
		st, err := stateFrom(refs[i], arr)
		if err != nil {
			return nil, err
		}
		out[i] = st.View
		out[i].Meta.Ref = refs[i]
	}
	return out, nil
}

// ApplyFold runs the fold script: the compare-and-swap on the claim and the
// summary version, the removal of the folded messages and the new summary are one
// atomic step, so a crash leaves the old state or the new one.
func (s *Store) ApplyFold(ctx context.Context, f session.Fold) error {
	c, err := s.conn()
	if err != nil {
		return err
	}
	k := s.keys(f.Ref)
	sum, err := encodeSummary(session.Summary{Text: f.Summary, Version: f.BaseVersion + 1, UpdatedAt: f.At})
	if err != nil {
		return fmt.Errorf("redisstore: encode summary: %w", err)
	}
	args := append([]string{f.Holder, micros(f.At), strconv.FormatInt(f.BaseVersion, 10), sum, ms(s.limits.SummaryTTL),
		strconv.Itoa(f.FoldAt), k.foldMember}, f.MessageIDs...)
	res, err := scriptApplyFold.Exec(ctx, c, []string{k.messages, k.meta, k.summary, k.index, k.folds, k.claim}, args).ToString()
	if err != nil {
		return wrapErr("apply fold", err)
	}
	switch res {
	case "ok":
		return nil
	case "claim":
		return fmt.Errorf("redisstore: apply fold of %s: the claim is no longer %s's: %w", f.Ref, f.Holder, ports.ErrConflict)
	default:
		return fmt.Errorf("redisstore: apply fold of %s: the summary moved past version %d: %w", f.Ref, f.BaseVersion, ports.ErrConflict)
	}
}

// ReleaseFold runs the release script.
func (s *Store) ReleaseFold(ctx context.Context, ref session.Ref, holder string, retryAt time.Time) error {
	c, err := s.conn()
	if err != nil {
		return err
	}
	k := s.keys(ref)
	retry := "0"
	if !retryAt.IsZero() {
		retry = micros(retryAt)
	}
	return wrapErr("release fold", scriptRelease.Exec(ctx, c, []string{k.claim, k.folds}, []string{holder, retry, k.foldMember}).Error())
}

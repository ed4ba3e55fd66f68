package lifecycle

import (
	"context"
	"errors"
	"fmt"

	"engram/domain/memory"
	"engram/ports"
)

// What a consolidation counts.
const (
	CountScanned        = "scanned"
	CountExpired        = "expired"
	CountNoiseDeleted   = "noise_deleted"
	CountKeysNormalised = "keys_normalised"
	CountMerged         = "merged"
)

// Consolidate cleans up one user's memories with rules (no model):
//
//   - an active memory past its expiry is deactivated with an EXPIRE event;
//   - an active memory under a noise key is deleted (DELETE);
//   - live memories whose keys differ only in separators ("reply-language",
//     "reply_language", "reply.language") are one memory: they are folded under
//     the key of the scheme ('.' between segments), keeping the newest content;
//   - live memories at least MergeSimilarity similar (or with the same content) are
//     folded into the more important, then more recent one.
//
// A fold is a DELETE event on the copy and a MERGE event on the survivor. Running
// it twice changes nothing the second time.
func (s *Service) Consolidate(ctx context.Context, scope memory.Scope) (map[string]int, error) {
	counts := map[string]int{CountScanned: 0, CountExpired: 0, CountNoiseDeleted: 0, CountKeysNormalised: 0, CountMerged: 0}
	all, err := s.all(ctx, scope)
	if err != nil {
		return counts, err
	}
	counts[CountScanned] = len(all)
	var noisy []memory.Memory
	if s.noise != nil {
		if noisy, err = s.noise.NoiseMemories(ctx, scope); err != nil {
			return counts, fmt.Errorf("find noise memories: %w", err)
		}
	}
	plan := planConsolidation(all, noisy, s.clock.Now(), s.opts.MergeSimilarity)
	for _, e := range plan.ends {
		if err := s.deactivate(ctx, scope, e.key, e.op); err != nil {
			return counts, err
		}
		counts[e.count]++
	}
	for _, f := range plan.folds {
		if err := s.fold(ctx, scope, f); err != nil {
			return counts, err
		}
		counts[f.count]++
	}
	return counts, nil
}

// all reads the user's memories, inactive and expired included, up to MaxMemories.
func (s *Service) all(ctx context.Context, scope memory.Scope) ([]memory.Memory, error) {
	var out []memory.Memory
	q := ports.MemoryQuery{IncludeInactive: true, Limit: 1000, Now: s.clock.Now()}
	for len(out) < s.opts.MaxMemories {
		page, err := s.memories.List(ctx, scope, q)
		if err != nil {
			return nil, fmt.Errorf("list memories: %w", err)
		}
		out = append(out, page.Items...)
		if page.NextKey.IsZero() {
			break
		}
		q.AfterKey = page.NextKey
	}
	if len(out) > s.opts.MaxMemories {
		out = out[:s.opts.MaxMemories]
	}
	return out, nil
}

// deactivate ends a memory with op (EXPIRE or DELETE) unless it is already inactive.
func (s *Service) deactivate(ctx context.Context, scope memory.Scope, key memory.Key, op memory.Op) error {
	_, err := s.memories.Update(ctx, scope, key, func(cur *memory.Memory) (memory.Change, error) {
		if cur == nil || !cur.Active() {
			return memory.Change{}, ports.ErrNoChange
		}
		next := cur.Deactivate(consolidationSource, s.clock.Now())
		return memory.Change{Memory: next, Event: memory.NewEvent(s.ids.New(), op, cur, next)}, nil
	})
	if errors.Is(err, ports.ErrNoChange) {
		return nil
	}
	return err
}

// fold ends the copy (DELETE) and records the merge on the survivor (MERGE,
// memory.Fold). A copy no longer live has nothing to fold.
func (s *Service) fold(ctx context.Context, scope memory.Scope, f fold) error {
	gone, err := s.memories.Update(ctx, scope, f.copyOf, func(cur *memory.Memory) (memory.Change, error) {
		if c, ok := memory.FoldOut(cur, consolidationSource, s.ids.New, s.clock.Now()); ok {
			return c, nil
		}
		return memory.Change{}, ports.ErrNoChange
	})
	if errors.Is(err, ports.ErrNoChange) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = s.memories.Update(ctx, scope, f.survivor, func(cur *memory.Memory) (memory.Change, error) {
		if c, ok := memory.Fold(cur, gone, f.says, consolidationSource, s.ids.New, s.clock.Now()); ok {
			return c, nil
		}
		return memory.Change{}, ports.ErrNoChange
	})
	if errors.Is(err, ports.ErrNoChange) {
		return nil
	}
	return err
}

package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"engram/domain/candidate"
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
	now := s.clock.Now()
	var live []memory.Memory
	for _, m := range all {
		switch {
		case m.Active() && m.IsExpired(now):
			if err := s.deactivate(ctx, scope, m.Key(), memory.OpExpire); err != nil {
				return counts, err
			}
			counts[CountExpired]++
		case m.IsLive(now):
			live = append(live, m)
		}
	}
	if s.noise != nil {
		noisy, err := s.noise.NoiseMemories(ctx, scope)
		if err != nil {
			return counts, fmt.Errorf("find noise memories: %w", err)
		}
		for _, m := range noisy {
			if !m.Active() {
				continue
			}
			if err := s.deactivate(ctx, scope, m.Key(), memory.OpDelete); err != nil {
				return counts, err
			}
			counts[CountNoiseDeleted]++
		}
	}

	folded := map[memory.Key]bool{}
	for _, group := range keyVariants(live) {
		survivor := group[0]
		newest := group[0]
		for _, m := range group[1:] {
			if m.UpdatedAt().After(newest.UpdatedAt()) {
				newest = m
			}
		}
		for _, m := range group[1:] {
			if err := s.fold(ctx, scope, survivor.Key(), m, newest); err != nil {
				return counts, err
			}
			folded[m.Key()] = true
			counts[CountKeysNormalised]++
		}
	}

	remaining := make([]memory.Memory, 0, len(live))
	for _, m := range live {
		if !folded[m.Key()] {
			remaining = append(remaining, m)
		}
	}
	// The more important, then more recently changed, memory survives.
	slices.SortStableFunc(remaining, func(a, b memory.Memory) int {
		if a.Importance() != b.Importance() {
			return b.Importance() - a.Importance()
		}
		if c := b.UpdatedAt().Compare(a.UpdatedAt()); c != 0 {
			return c
		}
		return strings.Compare(a.Key().String(), b.Key().String())
	})
	terms := make([]map[string]bool, len(remaining))
	for i, m := range remaining {
		terms[i] = candidate.Terms(m.Content())
	}
	for i, survivor := range remaining {
		if folded[survivor.Key()] {
			continue
		}
		for j := i + 1; j < len(remaining); j++ {
			other := remaining[j]
			if folded[other.Key()] {
				continue
			}
			if !candidate.SameContent(survivor.Content(), other.Content()) && cosine(terms[i], terms[j]) < s.opts.MergeSimilarity {
				continue
			}
			if err := s.fold(ctx, scope, survivor.Key(), other, memory.Memory{}); err != nil {
				return counts, err
			}
			folded[other.Key()] = true
			counts[CountMerged]++
		}
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

// fold deletes the copy and records a MERGE on the survivor, which keeps the higher
// importance and confidence; when content is set (a key variant that was said
// later), the survivor takes that memory's type and content.
func (s *Service) fold(ctx context.Context, scope memory.Scope, survivor memory.Key, copyOf memory.Memory, content memory.Memory) error {
	if err := s.deactivate(ctx, scope, copyOf.Key(), memory.OpDelete); err != nil {
		return err
	}
	_, err := s.memories.Update(ctx, scope, survivor, func(cur *memory.Memory) (memory.Change, error) {
		now := s.clock.Now()
		if cur == nil || !cur.IsLive(now) {
			return memory.Change{}, ports.ErrNoChange
		}
		target := memory.Merged(cur.State(), copyOf.State(), now)
		if !content.Key().IsZero() && content.Key() != cur.Key() {
			target.Type, target.Content = content.Type(), content.Content()
		}
		next := cur.RevertTo(target, consolidationSource, now)
		return memory.Change{Memory: next, Event: memory.NewEvent(s.ids.New(), memory.OpMerge, cur, next)}, nil
	})
	if errors.Is(err, ports.ErrNoChange) {
		return nil
	}
	return err
}

// keyVariants groups live memories whose keys are the same once '-', '_' and '.'
// are read alike. The first of each group is the key to keep: the one written in
// the scheme's '.' form if any, else the shortest, then the smallest.
func keyVariants(live []memory.Memory) [][]memory.Memory {
	groups := map[string][]memory.Memory{}
	var order []string
	for _, m := range live {
		u := strings.NewReplacer("-", ".", "_", ".").Replace(m.Key().String())
		if _, seen := groups[u]; !seen {
			order = append(order, u)
		}
		groups[u] = append(groups[u], m)
	}
	var out [][]memory.Memory
	for _, u := range order {
		g := groups[u]
		if len(g) < 2 {
			continue
		}
		slices.SortStableFunc(g, func(a, b memory.Memory) int {
			ka, kb := a.Key().String(), b.Key().String()
			if sa, sb := strings.Count(ka, "."), strings.Count(kb, "."); sa != sb {
				return sb - sa
			}
			if len(ka) != len(kb) {
				return len(ka) - len(kb)
			}
			return strings.Compare(ka, kb)
		})
		out = append(out, g)
	}
	return out
}

// cosine is candidate.Similarity on precomputed term sets.
func cosine(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	common := 0
	for t := range a {
		if b[t] {
			common++
		}
	}
	return float64(common) / math.Sqrt(float64(len(a))*float64(len(b)))
}

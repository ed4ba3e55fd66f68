package memstore

import (
	"context"
	"slices"
	"strings"
	"time"

	"engram/domain/memory"
)

// ExpiredMemories lists active memories of every tenant whose expiry has passed,
// oldest expiry first.
func (s *MemoryStore) ExpiredMemories(_ context.Context, now time.Time, limit int) ([]memory.Memory, error) {
	now = normTime(now)
	s.mu.Lock()
	var states []memory.State
	for _, st := range s.memories {
		if st.Active && !st.ExpiresAt.IsZero() && !st.ExpiresAt.After(now) {
			states = append(states, st)
		}
	}
	s.mu.Unlock()
	slices.SortFunc(states, func(a, b memory.State) int {
		if c := a.ExpiresAt.Compare(b.ExpiresAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if len(states) > limit {
		states = states[:limit]
	}
	out := make([]memory.Memory, len(states))
	for i, st := range states {
		out[i] = memory.Restore(st)
	}
	return out, nil
}

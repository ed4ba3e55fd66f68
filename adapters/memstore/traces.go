package memstore

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"engram/domain/memory"
	"engram/domain/promptctx"
	"engram/ports"
)

// TraceStore is an in-memory ports.TraceStore.
type TraceStore struct {
	mu     sync.Mutex
	traces map[string]promptctx.Trace // by id
	guard  ports.ErasureGuard
}

var _ ports.TraceStore = (*TraceStore)(nil)

// NewTraceStore returns an empty store.
func NewTraceStore() *TraceStore { return &TraceStore{traces: map[string]promptctx.Trace{}} }

// GuardErasures makes the store leave out the traces of users being erased. Call
// it once, before the store is used.
func (s *TraceStore) GuardErasures(g ports.ErasureGuard) { s.guard = g }

// SaveTraces stores the traces of users not being erased.
func (s *TraceStore) SaveTraces(ctx context.Context, traces []promptctx.Trace) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memstore: save traces: %w: %w", ports.ErrUnavailable, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range traces {
		if _, stored := s.traces[t.ID]; stored || hidden(ctx, s.guard, t.Scope) {
			continue
		}
		t = copyTrace(t)
		t.At = t.At.UTC().Truncate(time.Microsecond) // what SQL keeps
		s.traces[t.ID] = t
	}
	return nil
}

// Trace returns one trace of the tenant.
func (s *TraceStore) Trace(_ context.Context, tenant, id string) (promptctx.Trace, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.traces[id]
	if !ok || t.Scope.Tenant != tenant {
		return promptctx.Trace{}, fmt.Errorf("memstore: get trace: %w", ports.ErrNotFound)
	}
	return copyTrace(t), nil
}

// LatestTrace returns the user's trace with the greatest id.
func (s *TraceStore) LatestTrace(_ context.Context, scope memory.Scope) (promptctx.Trace, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var latest promptctx.Trace
	for _, t := range s.traces {
		if t.Scope == scope && t.ID > latest.ID {
			latest = t
		}
	}
	if latest.ID == "" {
		return promptctx.Trace{}, fmt.Errorf("memstore: latest trace: %w", ports.ErrNotFound)
	}
	return copyTrace(latest), nil
}

// DeleteTracesBefore removes up to limit traces made before cutoff, oldest first.
func (s *TraceStore) DeleteTracesBefore(_ context.Context, cutoff time.Time, limit int) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var old []promptctx.Trace
	for _, t := range s.traces {
		if t.At.Before(cutoff) {
			old = append(old, t)
		}
	}
	slices.SortFunc(old, func(a, b promptctx.Trace) int { return a.At.Compare(b.At) })
	n := min(len(old), max(limit, 0))
	for _, t := range old[:n] {
		delete(s.traces, t.ID)
	}
	return int64(n), nil
}

// PurgeUser removes the user's traces.
func (s *TraceStore) PurgeUser(_ context.Context, scope memory.Scope) (map[string]int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := deleteOfScope(s.traces, scope, func(t promptctx.Trace) memory.Scope { return t.Scope })
	return map[string]int64{ports.PurgedTraces: n}, nil
}

// copyTrace keeps the store's copy apart from the caller's.
func copyTrace(t promptctx.Trace) promptctx.Trace {
	t.SourceCount = maps.Clone(t.SourceCount)
	t.Omitted = maps.Clone(t.Omitted)
	t.Timings = maps.Clone(t.Timings)
	t.Items = slices.Clone(t.Items)
	t.RawHits = slices.Clone(t.RawHits)
	return t
}

package memstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"engram/domain/memory"
	"engram/domain/profile"
	"engram/ports"
)

// ActivityStore is an in-memory ports.ActivityStore.
type ActivityStore struct {
	guard  ports.ErasureGuard // nil: no erasures (GuardErasures)
	mu     sync.Mutex
	events map[memory.Scope]map[string]profile.Activity // by event id
}

var _ ports.ActivityStore = (*ActivityStore)(nil)

// NewActivityStore returns an empty store.
func NewActivityStore() *ActivityStore {
	return &ActivityStore{events: map[memory.Scope]map[string]profile.Activity{}}
}

// GuardErasures makes the store refuse events of users being erased, as the SQL
// store does. Call it once, before the store is used.
func (s *ActivityStore) GuardErasures(g ports.ErasureGuard) { s.guard = g }

// RecordActivity stores an event, idempotently on its id; an event of a user
// being erased is refused (*ports.ErasingError).
func (s *ActivityStore) RecordActivity(ctx context.Context, a profile.Activity) (profile.Activity, bool, error) {
	if err := ctx.Err(); err != nil {
		return profile.Activity{}, false, fmt.Errorf("memstore: record activity: %w: %w", ports.ErrUnavailable, err)
	}
	a.At, a.ReceivedAt = normTime(a.At), normTime(a.ReceivedAt)
	if err := guardWrite(ctx, s.guard, a.Scope); err != nil {
		return profile.Activity{}, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	byID := s.events[a.Scope]
	if byID == nil {
		byID = map[string]profile.Activity{}
		s.events[a.Scope] = byID
	}
	if prev, ok := byID[a.EventID]; ok {
		if !prev.SameAs(a) {
			return profile.Activity{}, false, &ports.ActivityConflictError{EventID: a.EventID}
		}
		return prev, false, nil
	}
	byID[a.EventID] = a
	return a, true, nil
}

// ActivityTallies sums the user's events by kind and flow.
func (s *ActivityStore) ActivityTallies(_ context.Context, scope memory.Scope) ([]profile.ActivityTally, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var events []profile.Activity
	for _, a := range s.events[scope] {
		events = append(events, a)
	}
	return tallyActivity(events), nil
}

// PurgeUser removes the user's events.
func (s *ActivityStore) PurgeUser(_ context.Context, scope memory.Scope) (map[string]int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := int64(len(s.events[scope]))
	delete(s.events, scope)
	return map[string]int64{"activity_events": n}, nil
}

// tallyActivity is the GROUP BY kind, flow_id of the SQL store, in the same order.
func tallyActivity(events []profile.Activity) []profile.ActivityTally {
	type key struct {
		kind profile.ActivityKind
		flow string
	}
	byKey := map[key]*profile.ActivityTally{}
	named := map[key]profile.Activity{} // the latest event with a flow name
	for _, a := range events {
		k := key{a.Kind, a.FlowID}
		t := byKey[k]
		if t == nil {
			t = &profile.ActivityTally{Kind: a.Kind, FlowID: a.FlowID}
			byKey[k] = t
		}
		t.Count++
		if a.HasDuration {
			t.DurationSum += a.DurationH
			t.DurationCount++
		}
		if a.At.After(t.LastAt) {
			t.LastAt = a.At
		}
		if a.FlowName != "" {
			if prev, ok := named[k]; !ok || a.At.After(prev.At) || (a.At.Equal(prev.At) && a.EventID > prev.EventID) {
				named[k] = a
			}
		}
	}
	out := make([]profile.ActivityTally, 0, len(byKey))
	for k, t := range byKey {
		t.FlowName = named[k].FlowName
		out = append(out, *t)
	}
	sortTallies(out)
	return out
}

func sortTallies(ts []profile.ActivityTally) {
	slices.SortFunc(ts, func(a, b profile.ActivityTally) int {
		if c := strings.Compare(string(a.Kind), string(b.Kind)); c != 0 {
			return c
		}
		return strings.Compare(a.FlowID, b.FlowID)
	})
}

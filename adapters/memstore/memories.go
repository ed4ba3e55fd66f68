package memstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"engram/domain/memory"
	"engram/ports"
)

// Listing bounds, as in sqlstore; MemoryQuery.Limit outside 1..MaxListLimit is
// brought inside.
const (
	DefaultListLimit = 100
	MaxListLimit     = 1000
)

// MemoryStore is an in-memory ports.MemoryStore.
type MemoryStore struct {
	guard   ports.ErasureGuard // nil: no erasures (GuardErasures)
	vectors *VectorSyncStore   // the vector bookkeeping built over this store, if any

	mu        sync.Mutex
	memories  map[scopedKey]memory.State
	memoryIDs map[string]scopedKey
	events    map[string]memory.Event // by id
	history   map[scopedKey][]string  // event ids of a key, ascending
}

type scopedKey struct {
	tenant, user string
	key          memory.Key
}

var _ ports.MemoryStore = (*MemoryStore)(nil)

// NewMemoryStore returns an empty store.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{
		memories:  map[scopedKey]memory.State{},
		memoryIDs: map[string]scopedKey{},
		events:    map[string]memory.Event{},
		history:   map[scopedKey][]string{},
	}
}

func keyOf(scope memory.Scope, key memory.Key) scopedKey {
	return scopedKey{tenant: scope.Tenant, user: scope.User, key: key}
}

// Get returns the memory with this key, active or not.
func (s *MemoryStore) Get(ctx context.Context, scope memory.Scope, key memory.Key) (memory.Memory, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.memories[keyOf(scope, key)]
	if !ok || hidden(ctx, s.guard, scope) {
		return memory.Memory{}, fmt.Errorf("memstore: get memory: %w", ports.ErrNotFound)
	}
	return memory.Restore(st), nil
}

// Update runs fn with the store locked, so writers of any key take turns; fn must
// not call the store.
func (s *MemoryStore) Update(ctx context.Context, scope memory.Scope, key memory.Key,
	fn func(current *memory.Memory) (memory.Change, error),
) (memory.Memory, error) {
	if err := ctx.Err(); err != nil {
		return memory.Memory{}, fmt.Errorf("memstore: update memory: %w: %w", ports.ErrUnavailable, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := guardWrite(ctx, s.guard, scope); err != nil {
		return memory.Memory{}, err
	}
	k := keyOf(scope, key)
	var current *memory.Memory
	if st, ok := s.memories[k]; ok {
		m := memory.Restore(st)
		current = &m
	}
	change, err := fn(current)
	if err != nil {
		return memory.Memory{}, err
	}
	if err := checkChange(scope, key, current, change); err != nil {
		return memory.Memory{}, err
	}
	st := normState(change.Memory.State())
	if owner, taken := s.memoryIDs[st.ID]; taken && owner != k {
		return memory.Memory{}, fmt.Errorf("memstore: insert memory: id %q is taken: %w", st.ID, ports.ErrConflict)
	}
	if _, taken := s.events[change.Event.ID]; taken {
		return memory.Memory{}, fmt.Errorf("memstore: insert memory event: id %q is taken: %w", change.Event.ID, ports.ErrConflict)
	}
	s.memories[k] = st
	s.memoryIDs[st.ID] = k
	s.events[change.Event.ID] = normEvent(change.Event)
	ids := append(s.history[k], change.Event.ID)
	if n := len(ids); n > 1 && ids[n-2] > ids[n-1] {
		slices.Sort(ids) // history is in id order, as in SQL
	}
	s.history[k] = ids
	return memory.Restore(st), nil
}

// checkChange refuses a change that would land outside the scope and key being
// updated, as sqlstore does.
func checkChange(scope memory.Scope, key memory.Key, current *memory.Memory, c memory.Change) error {
	st := c.Memory.State()
	switch {
	case st.Scope != scope || st.Key != key:
		return fmt.Errorf("memstore: update memory: the change is for %q/%q/%q, not %q/%q/%q",
			st.Scope.Tenant, st.Scope.User, st.Key, scope.Tenant, scope.User, key)
	case current != nil && st.ID != current.ID():
		return fmt.Errorf("memstore: update memory: the change renames memory %q to %q", current.ID(), st.ID)
	case st.ID == "":
		return fmt.Errorf("memstore: update memory: the memory has no id")
	case c.Event.ID == "":
		return fmt.Errorf("memstore: update memory: the event has no id")
	case c.Event.Scope != scope || c.Event.Key != key || c.Event.MemoryID != st.ID:
		return fmt.Errorf("memstore: update memory: the event is for another memory")
	}
	return nil
}

// List returns one page of the user's memories ordered by key.
func (s *MemoryStore) List(ctx context.Context, scope memory.Scope, q ports.MemoryQuery) (ports.MemoryPage, error) {
	if hidden(ctx, s.guard, scope) {
		return ports.MemoryPage{}, nil
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultListLimit
	}
	limit = min(limit, MaxListLimit)
	now := normTime(q.Now)
	needle := foldASCII(q.Contains)

	s.mu.Lock()
	var matches []memory.State
	for k, st := range s.memories {
		switch {
		case k.tenant != scope.Tenant || k.user != scope.User:
		case memory.IsNoise(st.Key):
		case !q.IncludeInactive && (!st.Active || (!st.ExpiresAt.IsZero() && !st.ExpiresAt.After(now))):
		case len(q.Types) > 0 && !slices.Contains(q.Types, st.Type):
		case needle != "" && !strings.Contains(foldASCII(st.Key.String()), needle) &&
			!strings.Contains(foldASCII(st.Content), needle):
		case !q.AfterKey.IsZero() && st.Key.Compare(q.AfterKey) <= 0:
		default:
			matches = append(matches, st)
		}
	}
	s.mu.Unlock()

	slices.SortFunc(matches, func(a, b memory.State) int { return a.Key.Compare(b.Key) })
	var page ports.MemoryPage
	if len(matches) > limit {
		matches = matches[:limit]
		page.NextKey = matches[limit-1].Key
	}
	page.Items = make([]memory.Memory, len(matches))
	for i, st := range matches {
		page.Items[i] = memory.Restore(st)
	}
	return page, nil
}

// CountActive counts the memories of every tenant that a listing would show at
// now: active, unexpired, not noise.
func (s *MemoryStore) CountActive(_ context.Context, now time.Time) (int64, error) {
	now = normTime(now)
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for _, st := range s.memories {
		if st.Active && !memory.IsNoise(st.Key) && (st.ExpiresAt.IsZero() || st.ExpiresAt.After(now)) {
			n++
		}
	}
	return n, nil
}

// foldASCII lowers ASCII letters only, as SQL's LIKE does in sqlstore; letters
// outside ASCII match only as they are.
func foldASCII(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, s)
}

// History returns the events of one key, oldest first (id order).
func (s *MemoryStore) History(ctx context.Context, scope memory.Scope, key memory.Key) ([]memory.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if hidden(ctx, s.guard, scope) {
		return nil, nil
	}
	ids := append(slices.Clone(s.history[keyOf(scope, key)]), s.history[keyOf(scope, memory.PurgedKey(scope, key))]...)
	slices.Sort(ids) // a PURGE is filed under memory.PurgedKey; ids are in time order
	events := make([]memory.Event, 0, len(ids))
	for _, id := range ids {
		events = append(events, copyEvent(s.events[id]))
	}
	return events, nil
}

// Event returns one event of the scope; another scope's event is not found.
func (s *MemoryStore) Event(ctx context.Context, scope memory.Scope, eventID string) (memory.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.events[eventID]
	if !ok || e.Scope != scope || hidden(ctx, s.guard, scope) {
		return memory.Event{}, fmt.Errorf("memstore: get memory event: %w", ports.ErrNotFound)
	}
	return copyEvent(e), nil
}

// normTime keeps what SQL keeps: UTC, microseconds.
func normTime(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC().Truncate(time.Microsecond)
}

func normState(st memory.State) memory.State {
	st.ExpiresAt = normTime(st.ExpiresAt)
	st.LastAccessedAt = normTime(st.LastAccessedAt)
	st.Vector.SyncedAt = normTime(st.Vector.SyncedAt)
	st.CreatedAt = normTime(st.CreatedAt)
	st.UpdatedAt = normTime(st.UpdatedAt)
	return st
}

func normEvent(e memory.Event) memory.Event {
	e.After = normState(e.After)
	if e.Before != nil {
		b := normState(*e.Before)
		e.Before = &b
	}
	e.At = normTime(e.At)
	return e
}

func copyEvent(e memory.Event) memory.Event {
	if e.Before != nil {
		b := *e.Before
		e.Before = &b
	}
	return e
}

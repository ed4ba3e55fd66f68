package memstore

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
)

// LexicalIndex is an in-memory lexical index (ports.LexicalDocs, LexicalFeed, LexicalCursors) with the SQL store's semantics:
// one generation per user, tombstones for deletions.
type LexicalIndex struct {
	mu       sync.Mutex
	window   int64                  // tombstone window; 0: sqlstore.DefaultLexicalTombstoneWindow's 1000
	horizons map[memory.Scope]int64 // generation reached by erased users (SQL keeps it by fingerprint)
	users    map[memory.Scope]*lexicalUser
	cursors  map[string]string
	leases   map[string]lexicalLease
}

type lexicalLease struct {
	holder string
	until  time.Time
}

type lexicalUser struct {
	gen     int64
	horizon int64 // the newest generation whose tombstones were compacted
	docs    map[ports.LexicalRef]lexicalEntry
}

type lexicalEntry struct {
	doc     ports.LexicalDoc
	gen     int64
	deleted bool
}

var (
	_ ports.LexicalDocs    = (*LexicalIndex)(nil)
	_ ports.LexicalFeed    = (*LexicalIndex)(nil)
	_ ports.LexicalCursors = (*LexicalIndex)(nil)
)

// NewLexicalIndex returns an empty index.
func NewLexicalIndex() *LexicalIndex {
	return &LexicalIndex{users: map[memory.Scope]*lexicalUser{}, horizons: map[memory.Scope]int64{},
		cursors: map[string]string{}, leases: map[string]lexicalLease{}}
}

// SetTombstoneWindow sets how many of a user's latest generations keep their
// tombstones (as sqlstore's DB.SetLexicalTombstoneWindow). Call it before use.
func (x *LexicalIndex) SetTombstoneWindow(generations int64) { x.window = max(generations, 1) }

// user returns the user's documents; a user erased before starts above the
// generation it had reached, with its horizon there.
func (x *LexicalIndex) user(sc memory.Scope) *lexicalUser {
	u, ok := x.users[sc]
	if !ok {
		u = &lexicalUser{docs: map[ports.LexicalRef]lexicalEntry{}}
		if h, erased := x.horizons[sc]; erased {
			u.gen, u.horizon = h, h+1
		}
		x.users[sc] = u
	}
	return u
}

// Put upserts the documents with a new generation per user touched.
func (x *LexicalIndex) Put(ctx context.Context, docs []ports.LexicalDoc) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memstore: put lexical docs: %w: %w", ports.ErrUnavailable, err)
	}
	for _, d := range docs {
		if d.Tenant == "" || d.User == "" || d.ID == "" || (d.Kind != memory.KindMemory && d.Kind != memory.KindMessage) {
			return fmt.Errorf("memstore: put lexical docs: a document needs a tenant, a user, a kind and an id")
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	bumped := map[memory.Scope]bool{}
	for _, d := range docs {
		sc := memory.Scope{Tenant: d.Tenant, User: d.User}
		u := x.user(sc)
		if !bumped[sc] {
			u.gen++
			bumped[sc] = true
		}
		d.Terms = slices.Clone(d.Terms)
		d.At, d.ExpiresAt = norm(d.At), norm(d.ExpiresAt)
		u.docs[ports.LexicalRef{Kind: d.Kind, ID: d.ID}] = lexicalEntry{doc: d, gen: u.gen}
	}
	return nil
}

// Delete turns documents into tombstones of a new generation.
func (x *LexicalIndex) Delete(ctx context.Context, scope memory.Scope, refs []ports.LexicalRef) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memstore: delete lexical docs: %w: %w", ports.ErrUnavailable, err)
	}
	if len(refs) == 0 {
		return nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	u := x.user(scope)
	u.gen++
	for _, r := range refs {
		if e, ok := u.docs[r]; ok && !e.deleted {
			e.deleted, e.gen = true, u.gen
			e.doc.Terms = nil
			u.docs[r] = e
		}
	}
	x.compact(u)
	return nil
}

// compact forgets tombstones older than the window and raises the horizon.
func (x *LexicalIndex) compact(u *lexicalUser) {
	window := x.window
	if window <= 0 {
		window = 1000
	}
	horizon := u.gen - window
	if horizon <= 0 {
		return
	}
	dropped := false
	for ref, e := range u.docs {
		if e.deleted && e.gen <= horizon {
			delete(u.docs, ref)
			dropped = true
		}
	}
	if dropped && u.horizon < horizon {
		u.horizon = horizon
	}
}

// Generation returns the user's generation.
func (x *LexicalIndex) Generation(_ context.Context, scope memory.Scope) (int64, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if u, ok := x.users[scope]; ok {
		return u.gen, nil
	}
	return 0, nil
}

// ChangesSince returns the entries of later generations.
func (x *LexicalIndex) ChangesSince(_ context.Context, scope memory.Scope, since int64) (ports.LexicalChanges, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := ports.LexicalChanges{Generation: since}
	u, ok := x.users[scope]
	if since > 0 && (!ok || since < u.horizon || since > u.gen) {
		// Too far behind (compacted), or ahead of a user erased since: reload.
		out.Reset, out.Generation, since = true, 0, 0
		if ok {
			out.Generation = u.gen
		}
	}
	if !ok {
		return out, nil
	}
	for ref, e := range u.docs {
		if e.gen <= since || (since == 0 && e.deleted) {
			continue
		}
		out.Generation = max(out.Generation, e.gen)
		if e.deleted {
			out.Deleted = append(out.Deleted, ref)
			continue
		}
		d := e.doc
		d.Terms = slices.Clone(d.Terms)
		out.Docs = append(out.Docs, d)
	}
	// Map order is random; SQL returns rows in no promised order either, but tests
	// read better with a stable one.
	sort.Slice(out.Docs, func(i, j int) bool { return out.Docs[i].ID < out.Docs[j].ID })
	return out, nil
}

// Versions returns the indexed versions of memories.
func (x *LexicalIndex) Versions(_ context.Context, scope memory.Scope, memoryIDs []string) (map[string]int64, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := map[string]int64{}
	u, ok := x.users[scope]
	if !ok {
		return out, nil
	}
	for _, id := range memoryIDs {
		if e, ok := u.docs[ports.LexicalRef{Kind: memory.KindMemory, ID: id}]; ok && !e.deleted {
			out[id] = e.doc.Version
		}
	}
	return out, nil
}

// Users returns the users with the highest generations.
func (x *LexicalIndex) Users(_ context.Context, limit int) ([]memory.Scope, error) {
	x.mu.Lock()
	out := make([]memory.Scope, 0, len(x.users))
	gens := map[memory.Scope]int64{}
	for sc, u := range x.users {
		if u.gen > 0 {
			out = append(out, sc)
			gens[sc] = u.gen
		}
	}
	x.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if gens[out[i]] != gens[out[j]] {
			return gens[out[i]] > gens[out[j]]
		}
		if out[i].Tenant != out[j].Tenant {
			return out[i].Tenant < out[j].Tenant
		}
		return out[i].User < out[j].User
	})
	if len(out) > limit {
		out = out[:max(limit, 0)]
	}
	return out, nil
}

// Position returns a named position.
func (x *LexicalIndex) Position(_ context.Context, name string) (string, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.cursors[name], nil
}

// Set stores a named position.
func (x *LexicalIndex) Set(_ context.Context, name, position string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.cursors[name] = position
	return nil
}

// Claim takes or renews the cursor's lease when it is free, lapsed
// or already the holder's.
func (x *LexicalIndex) Claim(_ context.Context, name, holder string, now time.Time, lease time.Duration) (string, bool, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if l, held := x.leases[name]; held && l.holder != holder && now.Before(l.until) {
		return "", false, nil
	}
	x.leases[name] = lexicalLease{holder: holder, until: now.Add(lease)}
	return x.cursors[name], true, nil
}

// Release ends holder's lease, keeping the position.
func (x *LexicalIndex) Release(_ context.Context, name, holder string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if l, held := x.leases[name]; held && l.holder == holder {
		delete(x.leases, name)
	}
	return nil
}

func norm(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC().Truncate(time.Microsecond)
}

// ---------------------------------------------------------------- reads for retrieval

// MemoriesByID returns the user's memories with these ids, live or not.
func (s *MemoryStore) MemoriesByID(ctx context.Context, scope memory.Scope, ids []string) ([]memory.Memory, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if hidden(ctx, s.guard, scope) {
		return nil, nil
	}
	out := make([]memory.Memory, 0, len(ids))
	for _, id := range ids {
		k, ok := s.memoryIDs[id]
		if !ok || k.tenant != scope.Tenant || k.user != scope.User {
			continue
		}
		out = append(out, memory.Restore(s.memories[k]))
	}
	return out, nil
}

// TopMemories returns live memories, most important first, then newest change.
func (s *MemoryStore) TopMemories(ctx context.Context, scope memory.Scope, types []memory.Type, now time.Time, limit int) ([]memory.Memory, error) {
	if hidden(ctx, s.guard, scope) {
		return nil, nil
	}
	s.mu.Lock()
	var out []memory.Memory
	for k, st := range s.memories {
		if k.tenant != scope.Tenant || k.user != scope.User {
			continue
		}
		m := memory.Restore(st)
		if !m.IsLive(now) || (len(types) > 0 && !slices.Contains(types, m.Type())) {
			continue
		}
		out = append(out, m)
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Importance() != b.Importance() {
			return a.Importance() > b.Importance()
		}
		if !a.UpdatedAt().Equal(b.UpdatedAt()) {
			return a.UpdatedAt().After(b.UpdatedAt())
		}
		return a.ID() > b.ID()
	})
	if len(out) > limit {
		out = out[:max(limit, 0)]
	}
	return out, nil
}

// MemoriesChangedSince pages through memories of every user by (updated_at, id).
func (s *MemoryStore) MemoriesChangedSince(_ context.Context, afterAt time.Time, afterID string, limit int) ([]memory.Memory, error) {
	s.mu.Lock()
	var out []memory.Memory
	for _, st := range s.memories {
		if st.UpdatedAt.After(afterAt) || (st.UpdatedAt.Equal(afterAt) && st.ID > afterID) {
			out = append(out, memory.Restore(st))
		}
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if !out[i].UpdatedAt().Equal(out[j].UpdatedAt()) {
			return out[i].UpdatedAt().Before(out[j].UpdatedAt())
		}
		return out[i].ID() < out[j].ID()
	})
	if len(out) > limit {
		out = out[:max(limit, 0)]
	}
	return out, nil
}

// TouchMemories sets last_accessed_at unless a later read already did.
func (s *MemoryStore) TouchMemories(_ context.Context, tenant string, ids []string, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	at = norm(at)
	for _, id := range ids {
		k, ok := s.memoryIDs[id]
		if !ok || k.tenant != tenant {
			continue
		}
		st := s.memories[k]
		if st.LastAccessedAt.Before(at) {
			st.LastAccessedAt = at
			s.memories[k] = st
		}
	}
	return nil
}

// MessagesBySeq returns the user's messages with these arrival ids.
func (s *MessageStore) MessagesBySeq(ctx context.Context, scope memory.Scope, seqs []string) ([]conversation.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if hidden(ctx, s.guard, scope) {
		return nil, nil
	}
	out := make([]conversation.Message, 0, len(seqs))
	for _, seq := range seqs {
		if sm, ok := s.bySeq[seq]; ok && sm.msg.Scope == scope {
			out = append(out, sm.msg)
		}
	}
	return out, nil
}

// MessagesAfter returns messages by arrival id in (after, upTo].
func (s *MessageStore) MessagesAfter(_ context.Context, after, upTo string, limit int) ([]conversation.Message, error) {
	s.mu.Lock()
	var out []conversation.Message
	for seq, sm := range s.bySeq {
		if seq > after && seq <= upTo {
			out = append(out, sm.msg)
		}
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	if len(out) > limit {
		out = out[:max(limit, 0)]
	}
	return out, nil
}

var _ ports.UserPurger = (*LexicalIndex)(nil)

// PurgeUser forgets every document of the user, tombstones included, and keeps
// the generation reached, so the user's next generation starts above it.
func (x *LexicalIndex) PurgeUser(ctx context.Context, scope memory.Scope) (map[string]int64, error) {
	if err := ctx.Err(); err != nil {
		return map[string]int64{"lexical_docs": 0}, fmt.Errorf("memstore: purge lexical docs: %w: %w", ports.ErrUnavailable, err)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	u, ok := x.users[scope]
	if !ok {
		return map[string]int64{"lexical_docs": 0}, nil
	}
	x.horizons[scope] = max(x.horizons[scope], u.gen)
	delete(x.users, scope)
	return map[string]int64{"lexical_docs": int64(len(u.docs))}, nil
}

// StandingMemories returns up to limit live standing memories of the user, in
// memory.CompareStanding's order.
func (s *MemoryStore) StandingMemories(ctx context.Context, scope memory.Scope, minImportance int, now time.Time, limit int) ([]memory.Memory, error) {
	if hidden(ctx, s.guard, scope) {
		return nil, nil
	}
	s.mu.Lock()
	var out []memory.Memory
	for k, st := range s.memories {
		if m := memory.Restore(st); k.tenant == scope.Tenant && k.user == scope.User && m.IsLive(now) && m.IsStanding(minImportance) {
			out = append(out, m)
		}
	}
	s.mu.Unlock()
	slices.SortFunc(out, memory.CompareStanding)
	return out[:min(len(out), max(limit, 0))], nil
}

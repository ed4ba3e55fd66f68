package lexical

import (
	"container/list"
	"context"
	"fmt"
	"sync"

	"engram/domain/memory"
	"engram/domain/ranking"
	"engram/ports"
)

var _ ports.LexicalSearcher = (*Searcher)(nil)

// DefaultMaxCachedDocs bounds the documents kept in memory across users; the least
// recently searched users are dropped beyond it and reloaded on their next search.
const DefaultMaxCachedDocs = 2_000_000

// DefaultWarmUsers is how many users Warm loads at most.
const DefaultWarmUsers = 100

// Options shape the searcher.
type Options struct {
	// Recipe gives BM25's parameters, the neighbour window and weight, and the
	// context discount; zero: ranking.DefaultRecipe.
	Recipe ranking.Recipe
	// MaxCachedDocs bounds the documents held in memory; 0: DefaultMaxCachedDocs.
	MaxCachedDocs int
}

// Searcher holds the users' indexes. It is safe for concurrent use.
type Searcher struct {
	store   ports.LexicalFeed
	recipe  ranking.Recipe
	maxDocs int

	mu    sync.Mutex
	users map[memory.Scope]*userIndex
	lru   *list.List // of *userIndex, most recently used first
	docs  int        // documents held across users
}

// New returns a searcher over the documents of store.
func New(store ports.LexicalFeed, opts Options) *Searcher {
	if opts.Recipe == (ranking.Recipe{}) {
		opts.Recipe = ranking.DefaultRecipe
	}
	if opts.MaxCachedDocs <= 0 {
		opts.MaxCachedDocs = DefaultMaxCachedDocs
	}
	return &Searcher{store: store, recipe: opts.Recipe, maxDocs: opts.MaxCachedDocs,
		users: map[memory.Scope]*userIndex{}, lru: list.New()}
}

// userIndex is one user's documents, one index per kind.
type userIndex struct {
	scope    memory.Scope
	mu       sync.RWMutex
	gen      int64
	loaded   bool
	memories *kindIndex
	messages *kindIndex
	elem     *list.Element
	size     int // documents, as counted in Searcher.docs
}

func (u *userIndex) kind(k memory.Kind) *kindIndex {
	if k == memory.KindMessage {
		return u.messages
	}
	return u.memories
}

// SearchLexical runs q against the user's index.
func (s *Searcher) SearchLexical(ctx context.Context, scope memory.Scope, q ports.LexicalQuery) ([]ports.LexicalHit, error) {
	u, err := s.acquire(ctx, scope)
	if err != nil {
		return nil, fmt.Errorf("lexical: search: %w", err)
	}
	defer u.mu.RUnlock()
	return u.kind(q.Kind).search(newFilter(&q), q.Terms, q.Limit, s.recipe), nil
}

// Speakers returns the speaker terms of the user's messages with these ids.
func (s *Searcher) Speakers(ctx context.Context, scope memory.Scope, ids []string) (map[string]string, error) {
	u, err := s.acquire(ctx, scope)
	if err != nil {
		return nil, fmt.Errorf("lexical: speakers: %w", err)
	}
	defer u.mu.RUnlock()
	out := make(map[string]string, len(ids))
	for _, id := range ids {
		if sp := u.messages.speakerOf(id); sp != "" {
			out[id] = sp
		}
	}
	return out, nil
}

// Warm loads the indexes of the users with the most changes (up to users of them,
// and no more than half the cache's budget) before anyone searches, so that the
// first search of a user with 100,000 memories after a restart does not pay a load
// of seconds (docs/BENCHMARKS.md "Search latency at scale"). It stops when ctx
// ends; it returns how many users it loaded.
func (s *Searcher) Warm(ctx context.Context, users int) (int, error) {
	if users <= 0 {
		users = DefaultWarmUsers
	}
	scopes, err := s.store.Users(ctx, users)
	if err != nil {
		return 0, fmt.Errorf("lexical: warm: %w", err)
	}
	loaded := 0
	for _, sc := range scopes {
		if ctx.Err() != nil || s.Size() >= s.maxDocs/2 {
			break
		}
		u, err := s.acquire(ctx, sc)
		if err != nil {
			return loaded, fmt.Errorf("lexical: warm: %w", err)
		}
		u.mu.RUnlock()
		loaded++
	}
	return loaded, nil
}

// Size is how many documents the cache holds.
func (s *Searcher) Size() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.docs
}

// acquire returns the user's index, caught up with the store and read-locked; the
// caller must RUnlock it.
func (s *Searcher) acquire(ctx context.Context, scope memory.Scope) (*userIndex, error) {
	gen, err := s.store.Generation(ctx, scope)
	if err != nil {
		return nil, err
	}
	u := s.entry(scope)
	u.mu.RLock()
	if u.loaded && u.gen == gen {
		return u, nil
	}
	u.mu.RUnlock()

	u.mu.Lock()
	if u.loaded && gen < u.gen {
		// The store's generation went back: the user's documents were purged
		// (erasure) and maybe indexed anew. What this index holds is not theirs
		// any more; it is read again from nothing.
		u.memories, u.messages = newKindIndex(0, 0), newKindIndex(s.recipe.NeighbourWindow, s.recipe.NeighbourWeight)
		u.gen, u.loaded = 0, false
	}
	if !u.loaded || u.gen < gen {
		changes, err := s.store.ChangesSince(ctx, scope, u.gen)
		if err != nil {
			u.mu.Unlock()
			return nil, err
		}
		if changes.Reset {
			// This index is behind the store's compaction horizon (or the user was
			// erased): the changes are the whole set of documents, read from nothing.
			u.memories, u.messages = newKindIndex(0, 0), newKindIndex(s.recipe.NeighbourWindow, s.recipe.NeighbourWeight)
		}
		for _, ref := range changes.Deleted {
			u.kind(ref.Kind).remove(ref.ID)
		}
		for i := range changes.Docs {
			u.kind(changes.Docs[i].Kind).put(&changes.Docs[i])
		}
		u.gen = max(gen, changes.Generation)
		u.loaded = true
	}
	size := u.memories.n + u.messages.n
	u.mu.Unlock()
	s.resize(u, size)
	u.mu.RLock()
	return u, nil
}

// entry finds or creates the user's index and marks it most recently used.
func (s *Searcher) entry(scope memory.Scope) *userIndex {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.users[scope]
	if !ok {
		u = &userIndex{
			scope:    scope,
			memories: newKindIndex(0, 0),
			messages: newKindIndex(s.recipe.NeighbourWindow, s.recipe.NeighbourWeight),
		}
		s.users[scope] = u
		u.elem = s.lru.PushFront(u)
		return u
	}
	s.lru.MoveToFront(u.elem)
	return u
}

// resize records the user's size and drops least recently used users past the
// budget (never the one just used).
func (s *Searcher) resize(u *userIndex, size int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.users[u.scope] != u {
		return // dropped meanwhile; it lives on for the searches holding it
	}
	s.docs += size - u.size
	u.size = size
	for s.docs > s.maxDocs {
		last := s.lru.Back()
		if last == nil || last.Value.(*userIndex) == u {
			break
		}
		victim := last.Value.(*userIndex)
		s.lru.Remove(last)
		delete(s.users, victim.scope)
		s.docs -= victim.size
	}
}

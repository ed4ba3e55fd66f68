package lexical

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"engram/domain/memory"
	"engram/domain/ranking"
	"engram/ports"
	"engram/test/teststore"
)

func hitIDs(hits []ports.LexicalHit) []string {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}

// TestKindIndex_equalsRankingIndexMatchOverContextFields checks the query-time
// context against the measured method: the same documents indexed with
// ranking.Index and ranking.ContextFields must have the same evidence, whatever
// order messages arrive in and whatever was removed.
func TestKindIndex_equalsRankingIndexMatchOverContextFields(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 40)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%d", i)
	}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	type msg struct {
		doc  ports.LexicalDoc
		conv int
	}
	r := ranking.DefaultRecipe
	for round := range 20 {
		var msgs []msg
		convs := 1 + rng.IntN(4)
		for c := range convs {
			for p := range 1 + rng.IntN(12) {
				terms := make([]string, 1+rng.IntN(8))
				for i := range terms {
					terms[i] = vocab[rng.IntN(len(vocab))]
				}
				msgs = append(msgs, msg{conv: c, doc: ports.LexicalDoc{
					Kind: memory.KindMessage, ID: fmt.Sprintf("m%02d%03d", c, p),
					ConversationID: fmt.Sprintf("c%d", c), At: base.Add(time.Duration(p) * time.Minute), Terms: terms,
				}})
			}
		}
		// Some messages are removed again: the context must close the gap.
		removed := map[string]bool{}
		for _, m := range msgs {
			if rng.IntN(6) == 0 {
				removed[m.doc.ID] = true
			}
		}
		ki := newKindIndex(r.NeighbourWindow, r.NeighbourWeight)
		for _, i := range rng.Perm(len(msgs)) {
			ki.put(&msgs[i].doc)
		}
		for id := range removed {
			ki.remove(id)
		}
		ref := ranking.NewIndex(r.BM25)
		for c := range convs {
			var terms [][]string
			var ids []string
			for _, m := range msgs {
				if m.conv == c && !removed[m.doc.ID] {
					terms = append(terms, m.doc.Terms)
					ids = append(ids, m.doc.ID)
				}
			}
			for i := range terms {
				ref.Add(ids[i], ranking.ContextFields(terms, i, r.NeighbourWindow, r.NeighbourWeight)...)
			}
		}
		for range 10 {
			query := []string{vocab[rng.IntN(len(vocab))], vocab[rng.IntN(len(vocab))], vocab[rng.IntN(len(vocab))], "absent"}
			want := ref.Match(query, r, 0)
			got := ki.search(newFilter(&ports.LexicalQuery{}), query, 0, r)
			if len(got) != len(want) {
				t.Fatalf("round %d query %v: %d results, want %d", round, query, len(got), len(want))
			}
			wantEv := map[string]ranking.Evidence{}
			for _, w := range want {
				wantEv[w.ID] = w.Evidence
			}
			for _, g := range got {
				w := wantEv[g.ID]
				if math.Abs(g.Evidence.Direct-w.Direct) > 1e-9 || math.Abs(g.Evidence.Context-w.Context) > 1e-9 {
					t.Fatalf("round %d query %v: %s has %+v, want %+v", round, query, g.ID, g.Evidence, w)
				}
				if g.Evidence.Total() > 1+1e-12 {
					t.Fatalf("evidence %v above 1", g.Evidence.Total())
				}
			}
			// Only a few documents: the same evidence for them, nothing else.
			var only []string
			for i, g := range got {
				if i%3 == 0 {
					only = append(only, g.ID)
				}
			}
			some := ki.search(newFilter(&ports.LexicalQuery{Only: only}), query, 0, r)
			if len(some) != len(only) {
				t.Fatalf("round %d: Only %d documents gave %d", round, len(only), len(some))
			}
			for _, g := range some {
				if w := wantEv[g.ID]; math.Abs(g.Evidence.Direct-w.Direct) > 1e-9 || math.Abs(g.Evidence.Context-w.Context) > 1e-9 {
					t.Fatalf("round %d: with Only, %s has %+v, want %+v", round, g.ID, g.Evidence, w)
				}
			}
		}
	}
}

func TestKindIndex_filtersAndLimit(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ki := newKindIndex(0, 0)
	ki.put(&ports.LexicalDoc{Kind: memory.KindMemory, ID: "a", MemoryType: "fact", At: now.Add(-time.Hour), Terms: []string{"tea"}})
	ki.put(&ports.LexicalDoc{Kind: memory.KindMemory, ID: "b", MemoryType: "preference", At: now, Terms: []string{"tea", "green"}})
	ki.put(&ports.LexicalDoc{Kind: memory.KindMemory, ID: "c", MemoryType: "fact", At: now, ExpiresAt: now, Terms: []string{"tea"}})
	tests := []struct {
		name  string
		q     ports.LexicalQuery
		terms []string
		want  []string
	}{
		{"expired at now is left out", ports.LexicalQuery{Now: now}, []string{"tea"}, []string{"a", "b"}},
		{"types", ports.LexicalQuery{Now: now, MemoryTypes: []string{"preference"}}, []string{"tea"}, []string{"b"}},
		{"since is inclusive", ports.LexicalQuery{Now: now, Since: now}, []string{"tea"}, []string{"b"}},
		{"until is exclusive", ports.LexicalQuery{Now: now, Until: now}, []string{"tea"}, []string{"a"}},
		{"only", ports.LexicalQuery{Now: now, Only: []string{"a"}}, []string{"tea"}, []string{"a"}},
		{"limit keeps the best", ports.LexicalQuery{Now: now, Limit: 1}, []string{"tea", "green"}, []string{"b"}},
		{"no shared term finds nothing", ports.LexicalQuery{Now: now}, []string{"coffe"}, []string{}},
	}
	for _, tt := range tests {
		got := hitIDs(ki.search(newFilter(&tt.q), tt.terms, tt.q.Limit, ranking.DefaultRecipe))
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

// Memories have no neighbours: the evidence equals ranking.Index.Match over the
// own terms, in the same order.
func TestKindIndex_withoutNeighboursEqualsRankingIndex(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	ki := newKindIndex(0, 0)
	ref := ranking.NewIndex(ranking.DefaultBM25)
	for i := range 300 {
		terms := make([]string, 1+rng.IntN(9))
		for j := range terms {
			terms[j] = fmt.Sprintf("w%d", rng.IntN(30))
		}
		id := fmt.Sprintf("k%03d", i)
		ki.put(&ports.LexicalDoc{Kind: memory.KindMemory, ID: id, Terms: terms})
		ref.Add(id, ranking.Field{Terms: terms, Weight: 1})
	}
	for range 50 {
		query := []string{fmt.Sprintf("w%d", rng.IntN(30)), fmt.Sprintf("w%d", rng.IntN(30))}
		want := ref.Match(query, ranking.DefaultRecipe, 0)
		got := ki.search(newFilter(&ports.LexicalQuery{}), query, 0, ranking.DefaultRecipe)
		if len(got) != len(want) {
			t.Fatalf("query %v: %d results, want %d", query, len(got), len(want))
		}
		for i := range want {
			if math.Abs(got[i].Evidence.Total()-want[i].Evidence.Total()) > 1e-9 {
				t.Fatalf("query %v: result %d = %+v, want %+v", query, i, got[i], want[i])
			}
		}
	}
}

// The searcher follows the store by generations: a put or a delete committed to
// the store is seen by the next search, and the cache budget drops the least
// recently searched user.
func TestSearcher_followsTheStoreAndKeepsToItsBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := teststore.New(t).Lexical
	alice := memory.Scope{Tenant: "t1", User: "alice"}
	bob := memory.Scope{Tenant: "t1", User: "bob"}
	put := func(sc memory.Scope, id string, terms ...string) {
		t.Helper()
		if err := store.Put(ctx, []ports.LexicalDoc{{Tenant: sc.Tenant, User: sc.User, Kind: memory.KindMemory, ID: id, Terms: terms}}); err != nil {
			t.Fatal(err)
		}
	}
	s := New(store, Options{MaxCachedDocs: 2})
	find := func(sc memory.Scope, terms ...string) []string {
		t.Helper()
		hits, err := s.SearchLexical(ctx, sc, ports.LexicalQuery{Kind: memory.KindMemory, Terms: terms})
		if err != nil {
			t.Fatal(err)
		}
		return hitIDs(hits)
	}
	put(alice, "a1", "oat", "milk")
	if got := find(alice, "milk"); !slices.Equal(got, []string{"a1"}) {
		t.Fatalf("first search: %v", got)
	}
	put(alice, "a2", "milk", "tea")
	if got := find(alice, "tea"); !slices.Equal(got, []string{"a2"}) {
		t.Fatalf("after a put: %v", got)
	}
	if err := store.Delete(ctx, alice, []ports.LexicalRef{{Kind: memory.KindMemory, ID: "a1"}}); err != nil {
		t.Fatal(err)
	}
	if got := find(alice, "oat"); len(got) != 0 {
		t.Fatalf("after a delete: %v", got)
	}
	put(bob, "b1", "milk")
	put(bob, "b2", "tea")
	find(bob, "milk")
	if s.Size() > 2 {
		t.Errorf("the cache holds %d documents, budget 2", s.Size())
	}
	if got := find(alice, "tea"); !slices.Equal(got, []string{"a2"}) {
		t.Errorf("a user dropped from the cache is reloaded: %v", got)
	}
	n, err := New(store, Options{}).Warm(ctx, 1)
	if err != nil || n != 1 {
		t.Errorf("warm: %d, %v; want one user loaded", n, err)
	}
}

// swappableStore is a LexicalFeed whose contents can be replaced at once, as an
// erasure that purges a user's documents and their generation does.
type swappableStore struct {
	ports.LexicalFeed
}

// A user's generation that goes back (the documents were purged, and maybe
// indexed anew) means the cached index is not the user's any more.
func TestSearcher_forgetsAUserWhoseGenerationWentBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	alice := memory.Scope{Tenant: "t1", User: "alice"}
	doc := func(id string, terms ...string) ports.LexicalDoc {
		return ports.LexicalDoc{Tenant: alice.Tenant, User: alice.User, Kind: memory.KindMemory, ID: id, Terms: terms}
	}
	before := teststore.New(t).Lexical
	for _, d := range []ports.LexicalDoc{doc("a", "secret", "diari"), doc("b", "secret", "note"), doc("c", "tea")} {
		if err := before.Put(ctx, []ports.LexicalDoc{d}); err != nil {
			t.Fatal(err)
		}
	}
	store := &swappableStore{LexicalFeed: before}
	s := New(store, Options{})
	find := func(terms ...string) []string {
		t.Helper()
		hits, err := s.SearchLexical(ctx, alice, ports.LexicalQuery{Kind: memory.KindMemory, Terms: terms})
		if err != nil {
			t.Fatal(err)
		}
		return hitIDs(hits)
	}
	if got := find("secret"); len(got) != 2 {
		t.Fatalf("before the purge: %v", got)
	}
	after := teststore.New(t).Lexical // purged, then one new document: generation 1
	if err := after.Put(ctx, []ports.LexicalDoc{doc("d", "tea", "green")}); err != nil {
		t.Fatal(err)
	}
	store.LexicalFeed = after
	if got := find("secret"); len(got) != 0 {
		t.Errorf("after the purge: %v, want nothing of before", got)
	}
	if got := find("tea"); !slices.Equal(got, []string{"d"}) {
		t.Errorf("after the purge: %v, want only the new document", got)
	}
}

// TestSearcher_forgetsAnErasedUserAndReloadsWhenWrittenAgain: the store's own purge
// (erasure) keeps the user's generation climbing and answers readers with a Reset,
// so a cached index never serves what was erased, and documents written after the
// erasure are found.
func TestSearcher_forgetsAnErasedUserAndReloadsWhenWrittenAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := teststore.New(t).Lexical
	s := New(store, Options{})
	alice := memory.Scope{Tenant: "t1", User: "alice"}
	put := func(id string, terms ...string) {
		t.Helper()
		if err := store.Put(ctx, []ports.LexicalDoc{{Tenant: "t1", User: "alice", Kind: memory.KindMemory, ID: id, Terms: terms}}); err != nil {
			t.Fatal(err)
		}
	}
	found := func() []string {
		t.Helper()
		hits, err := s.SearchLexical(ctx, alice, ports.LexicalQuery{Kind: memory.KindMemory, Terms: []string{"tea"}})
		if err != nil {
			t.Fatal(err)
		}
		ids := hitIDs(hits)
		slices.Sort(ids)
		return ids
	}
	put("old1", "green", "tea")
	put("old2", "black", "tea")
	if got := found(); !slices.Equal(got, []string{"old1", "old2"}) {
		t.Fatalf("before the erasure: %v", got)
	}
	if _, err := store.PurgeUser(ctx, alice); err != nil {
		t.Fatal(err)
	}
	if got := found(); len(got) != 0 {
		t.Fatalf("after the erasure the cache still answers %v", got)
	}
	put("new1", "tea")
	put("new2", "tea", "cake")
	put("new3", "coffee")
	if got := found(); !slices.Equal(got, []string{"new1", "new2"}) {
		t.Errorf("after writing again: %v, want only the new documents", got)
	}
}

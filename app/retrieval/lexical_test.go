package retrieval

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"engram/adapters/memstore"
	"engram/domain/memory"
	"engram/domain/ranking"
	"engram/ports"
)

// TestKindIndex_equalsRankingIndexOverContextFields checks the query-time context
// against the measured method: the same documents indexed with ranking.Index and
// ranking.ContextFields must score the same, whatever order messages arrive in and
// whatever was removed.
func TestKindIndex_equalsRankingIndexOverContextFields(t *testing.T) {
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
		pos  int
	}
	for round := range 20 {
		var msgs []msg
		convs := 1 + rng.IntN(4)
		for c := range convs {
			for p := range 1 + rng.IntN(12) {
				terms := make([]string, 1+rng.IntN(8))
				for i := range terms {
					terms[i] = vocab[rng.IntN(len(vocab))]
				}
				msgs = append(msgs, msg{conv: c, pos: p, doc: ports.LexicalDoc{
					Kind: ports.LexicalMessage, ID: fmt.Sprintf("m%02d%03d", c, p),
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
		ki := newKindIndex(2, 0.5)
		for _, i := range rng.Perm(len(msgs)) {
			ki.put(&msgs[i].doc)
		}
		for id := range removed {
			ki.remove(id)
		}
		ref := ranking.NewIndex(ranking.DefaultBM25)
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
				ref.Add(ids[i], ranking.ContextFields(terms, i, 2, 0.5)...)
			}
		}
		for range 10 {
			query := []string{vocab[rng.IntN(len(vocab))], vocab[rng.IntN(len(vocab))], vocab[rng.IntN(len(vocab))]}
			want := ref.Search(query, 0)
			got := ki.search(&lexicalQuery{Kind: ports.LexicalMessage, Terms: query}, ranking.DefaultBM25)
			if len(got) != len(want) {
				t.Fatalf("round %d query %v: %d results, want %d", round, query, len(got), len(want))
			}
			wantScore := map[string]float64{}
			for _, w := range want {
				wantScore[w.ID] = w.Score
			}
			for _, g := range got {
				if math.Abs(g.Score-wantScore[g.ID]) > 1e-9 {
					t.Fatalf("round %d query %v: %s scores %v, want %v", round, query, g.ID, g.Score, wantScore[g.ID])
				}
			}
		}
	}
}

func TestKindIndex_filtersAndLimit(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ki := newKindIndex(0, 0)
	ki.put(&ports.LexicalDoc{Kind: ports.LexicalMemory, ID: "a", MemoryType: "fact", At: now.Add(-time.Hour), Terms: []string{"tea"}})
	ki.put(&ports.LexicalDoc{Kind: ports.LexicalMemory, ID: "b", MemoryType: "preference", At: now, Terms: []string{"tea", "green"}})
	ki.put(&ports.LexicalDoc{Kind: ports.LexicalMemory, ID: "c", MemoryType: "fact", At: now, ExpiresAt: now, Terms: []string{"tea"}})
	tests := []struct {
		name string
		q    lexicalQuery
		want []string
	}{
		{"expired at now is left out", lexicalQuery{Terms: []string{"tea"}, Now: now}, []string{"a", "b"}},
		{"types", lexicalQuery{Terms: []string{"tea"}, Now: now, Types: []string{"preference"}}, []string{"b"}},
		{"since is inclusive", lexicalQuery{Terms: []string{"tea"}, Now: now, Since: now}, []string{"b"}},
		{"until is exclusive", lexicalQuery{Terms: []string{"tea"}, Now: now, Until: now}, []string{"a"}},
		{"limit keeps the best", lexicalQuery{Terms: []string{"tea", "green"}, Now: now, Limit: 1}, []string{"b"}},
	}
	for _, tt := range tests {
		got := ki.search(&tt.q, ranking.DefaultBM25)
		var ids []string
		for _, g := range got {
			ids = append(ids, g.ID)
		}
		if fmt.Sprint(ids) != fmt.Sprint(tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, ids, tt.want)
		}
	}
}

// Memories have no neighbours: scores equal ranking.Index over the own terms.
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
		ki.put(&ports.LexicalDoc{Kind: ports.LexicalMemory, ID: id, Terms: terms})
		ref.Add(id, ranking.Field{Terms: terms, Weight: 1})
	}
	for range 50 {
		query := []string{fmt.Sprintf("w%d", rng.IntN(30)), fmt.Sprintf("w%d", rng.IntN(30))}
		want := ref.Search(query, 10)
		got := ki.search(&lexicalQuery{Kind: ports.LexicalMemory, Terms: query, Limit: 10}, ranking.DefaultBM25)
		if len(got) != len(want) {
			t.Fatalf("query %v: %d results, want %d", query, len(got), len(want))
		}
		for i := range want {
			if got[i].ID != want[i].ID || math.Abs(got[i].Score-want[i].Score) > 1e-9 {
				t.Fatalf("query %v: result %d = %+v, want %+v", query, i, got[i], want[i])
			}
		}
	}
}

// An API process holds a user's documents in memory; after the user is erased in
// the store (by any process) its next search must find none of them, and after the
// user is written again only the new documents — even when the new incarnation has
// made as many changes as the old one had.
func TestLexicalSearcher_forgetsAnErasedUserAndReloadsWhenWrittenAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := memstore.NewLexicalIndex()
	ls := newLexicalSearcher(store, ranking.DefaultRecipe, 0)
	alice := memory.Scope{Tenant: "t1", User: "alice"}
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	put := func(id string, terms ...string) {
		t.Helper()
		if err := store.PutLexicalDocs(ctx, []ports.LexicalDoc{{Tenant: "t1", User: "alice", Kind: ports.LexicalMemory, ID: id, At: at, Terms: terms}}); err != nil {
			t.Fatal(err)
		}
	}
	found := func() []string {
		t.Helper()
		items, _, err := ls.search(ctx, alice, lexicalQuery{Kind: ports.LexicalMemory, Terms: []string{"tea"}, Now: at, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, it := range items {
			ids = append(ids, it.ID)
		}
		sort.Strings(ids)
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

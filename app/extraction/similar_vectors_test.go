package extraction_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"engram/adapters/localembed"
	"engram/adapters/localvec"
	"engram/adapters/sqlstore"
	"engram/app/extraction"
	"engram/domain/candidate"
	"engram/domain/memory"
	"engram/ports"
	"engram/test/teststore"
)

// vsIndex is a vector index that can be made to fail.
type vsIndex struct {
	ports.VectorIndex
	fail bool
}

func (v *vsIndex) Search(ctx context.Context, q ports.VectorQuery) ([]ports.VectorHit, error) {
	if v.fail {
		return nil, fmt.Errorf("vector store down: %w", ports.ErrUnavailable)
	}
	return v.VectorIndex.Search(ctx, q)
}

type vsFixture struct {
	store    *sqlstore.MemoryStore
	embedder *localembed.Embedder
	index    *vsIndex
}

// newVSFixture stores n filler memories (keys a000…) and the given ones, each with
// its vector as the indexer role would write it.
func newVSFixture(t *testing.T, n int, extra map[memory.Key]string) *vsFixture {
	t.Helper()
	emb, err := localembed.New(localembed.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := localvec.New(localvec.Options{Dimension: emb.Dimension()})
	if err != nil {
		t.Fatal(err)
	}
	f := &vsFixture{store: teststore.New(t).Memories, embedder: emb, index: &vsIndex{VectorIndex: ix}}
	contents := map[memory.Key]string{}
	for i := range n {
		contents[memory.MustParseKey(fmt.Sprintf("a%03d", i))] = fmt.Sprintf("Filler fact number %d about gardening tools", i)
	}
	for k, c := range extra {
		contents[k] = c
	}
	ctx := context.Background()
	i := 0
	for key, content := range contents {
		i++
		m, err := f.store.Update(ctx, scope, key, func(*memory.Memory) (memory.Change, error) {
			d, err := memory.ParseDraft(memory.DraftInput{Type: "fact", Content: content}, memory.Source{Channel: memory.ChannelTool})
			if err != nil {
				return memory.Change{}, err
			}
			m, err := memory.New(fmt.Sprintf("01M%05d", i), scope, key, d, memory.Policy{}, start)
			return memory.Change{Memory: m, Event: memory.NewEvent(fmt.Sprintf("01E%05d", i), memory.OpAdd, nil, m)}, err
		})
		if err != nil {
			t.Fatal(err)
		}
		vec, _ := emb.Embed(ctx, []string{m.IndexText()})
		if err := ix.Upsert(ctx, []ports.VectorRecord{{ID: m.ID(), Tenant: scope.Tenant, User: scope.User,
			Kind: memory.KindMemory, MemoryType: "fact", At: start, Vector: vec[0]}}); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f *vsFixture) similar() *extraction.VectorSimilar {
	return &extraction.VectorSimilar{Embedder: f.embedder, Vectors: f.index, Store: f.store, Reader: f.store}
}

func keysIn(ms []memory.Memory) map[memory.Key]bool {
	out := map[memory.Key]bool{}
	for _, m := range ms {
		out[m.Key()] = true
	}
	return out
}

func TestVectorSimilar_findsTheDuplicateBeyondTheLexicalScan(t *testing.T) {
	t.Parallel()
	f := newVSFixture(t, 600, map[memory.Key]string{memory.MustParseKey("zz-allergy"): "Allergic to peanuts"})
	cands := []candidate.Candidate{{Op: candidate.OpAdd, Type: memory.TypeFact, Key: "health.peanut_allergy", Content: "User is allergic to peanuts"}}
	lexical, err := (&extraction.LexicalSimilar{Store: f.store}).Similar(context.Background(), scope, cands, start)
	if err != nil {
		t.Fatal(err)
	}
	if keysIn(lexical.Existing)[memory.MustParseKey("zz-allergy")] {
		t.Fatal("the fixture is wrong: the lexical scan of the first 500 keys already sees the duplicate")
	}
	n, err := f.similar().Similar(context.Background(), scope, cands, start)
	if err != nil {
		t.Fatal(err)
	}
	got := n.Existing
	if len(got) == 0 || got[0].Key() != memory.MustParseKey("zz-allergy") {
		t.Fatalf("vector similar = %v, want zz-allergy first", keysIn(got))
	}
	if s := n.Alike[0][0]; s < extraction.DefaultDuplicateSimilarity || s != candidate.Similarity(cands[0].Content, got[0].Content()) {
		t.Errorf("the neighbourhood scores %.2f: want the lexical similarity, above the duplicate threshold (the key is reused)", s)
	}
}

func TestVectorSimilar_keyMatchesFirstAndOnlyLiveNeighbours(t *testing.T) {
	t.Parallel()
	f := newVSFixture(t, 10, map[memory.Key]string{memory.MustParseKey("diet"): "Vegetarian", memory.MustParseKey("old-diet"): "Vegetarian, no fish"})
	ctx := context.Background()
	if _, err := f.store.Update(ctx, scope, memory.MustParseKey("old-diet"), func(cur *memory.Memory) (memory.Change, error) {
		next := cur.Deactivate(memory.Source{Channel: memory.ChannelTool}, start)
		return memory.Change{Memory: next, Event: memory.NewEvent("01DEL", memory.OpDelete, cur, next)}, nil
	}); err != nil {
		t.Fatal(err)
	}
	n, err := f.similar().Similar(ctx, scope, []candidate.Candidate{{Type: memory.TypePreference, Key: "diet", Content: "Eats no meat and no fish"}}, start)
	if err != nil {
		t.Fatal(err)
	}
	got := n.Existing
	if len(got) == 0 || got[0].Key() != memory.MustParseKey("diet") {
		t.Fatalf("got %v, want the memory with the candidate's key first", keysIn(got))
	}
	if keysIn(got)[memory.MustParseKey("old-diet")] {
		t.Error("a deleted memory came back as a neighbour")
	}
}

func TestVectorSimilar_fallsBackToLexicalWhenVectorsFail(t *testing.T) {
	t.Parallel()
	f := newVSFixture(t, 3, map[memory.Key]string{memory.MustParseKey("allergy"): "Allergic to peanuts"})
	f.index.fail = true
	n, err := f.similar().Similar(context.Background(), scope, []candidate.Candidate{{Type: memory.TypeFact, Key: "peanuts", Content: "User is allergic to peanuts"}}, start)
	if err != nil {
		t.Fatalf("a vector outage must not fail extraction: %v", err)
	}
	if !keysIn(n.Existing)[memory.MustParseKey("allergy")] || !n.Lexical {
		t.Errorf("fallback found %v (lexical %v), want allergy, scored lexically", keysIn(n.Existing), n.Lexical)
	}
	f.index.fail = false
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.similar().Similar(ctx, scope, []candidate.Candidate{{Type: memory.TypeFact, Key: "x", Content: "y"}}, start); err == nil || !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled run: %v, want context.Canceled", err)
	}
}

package extraction_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"engram/adapters/localvec"
	"engram/app/extraction"
	"engram/app/indexing"
	"engram/domain/candidate"
	"engram/domain/memory"
	"engram/ports"
	"engram/test/teststore"
)

// topicEmbedder stands in for an embedding model: texts about the same topic get
// the same direction whatever their words, as a model's paraphrase vectors do. It
// counts the texts it was given.
type topicEmbedder struct {
	topics []string
	err    error

	mu     sync.Mutex
	inputs []string
}

func (e *topicEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	e.inputs = append(e.inputs, texts...)
	e.mu.Unlock()
	if e.err != nil {
		return nil, e.err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, len(e.topics)+1)
		v[len(e.topics)] = 0.05 // no text is orthogonal to everything
		for j, topic := range e.topics {
			if strings.Contains(strings.ToLower(t), topic) {
				v[j] = 1
			}
		}
		out[i] = v
	}
	return out, nil
}
func (e *topicEmbedder) Model() string  { return "topics" }
func (e *topicEmbedder) Dimension() int { return len(e.topics) + 1 }

func (e *topicEmbedder) Inputs() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.inputs)
}

// indexedStore is a memory store whose memories have their vectors in a local
// index, as the indexer role leaves them, embedded by indexer (not by the
// embedder under test, which must never see them).
func indexedStore(t *testing.T, indexer ports.Embedder, contents map[string]string) (*teststore.Stores, ports.VectorIndex) {
	t.Helper()
	stores := teststore.New(t)
	store := stores.Memories
	ix, err := localvec.New(localvec.Options{Dimension: indexer.Dimension()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for key, content := range contents {
		d, err := memory.ParseDraft(memory.DraftInput{Type: "fact", Content: content}, memory.Source{Channel: memory.ChannelTool})
		if err != nil {
			t.Fatal(err)
		}
		m, err := store.Update(ctx, scope, memory.MustParseKey(key), func(*memory.Memory) (memory.Change, error) {
			m, err := memory.New("01M-"+key, scope, memory.MustParseKey(key), d, memory.Policy{}, start)
			return memory.Change{Memory: m, Event: memory.NewEvent("01E-"+key, memory.OpAdd, nil, m)}, err
		})
		if err != nil {
			t.Fatal(err)
		}
		vec, err := indexer.Embed(ctx, []string{m.IndexText()})
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.Upsert(ctx, []ports.VectorRecord{{ID: m.ID(), Tenant: scope.Tenant, User: scope.User,
			Kind: memory.KindMemory, MemoryType: "fact", At: start, Vector: vec[0]}}); err != nil {
			t.Fatal(err)
		}
	}
	return stores, ix
}

func TestPipeline_duplicatesAreFoundByStoredVectorsAndOnlyCandidatesAreEmbedded(t *testing.T) {
	t.Parallel()
	paraphrase := []candidate.Candidate{{Op: candidate.OpAdd, Type: memory.TypeFact, Key: "health.nut_allergy",
		Content: "User has a peanut allergy.", Importance: 4, Confidence: 0.9}}
	topics := []string{"peanut", "garden"}
	existing := map[string]string{"allergy.peanuts": "User is allergic to peanuts."}
	for i := range 40 { // the more a user has, the more re-embedding them used to cost
		existing[fmt.Sprintf("garden.tool%02d", i)] = fmt.Sprintf("User owns garden tool number %d.", i)
	}
	tests := []struct {
		name       string
		similar    func(ports.MemoryStore, ports.VectorIndex, *topicEmbedder) extraction.SimilarMemories
		embedder   *topicEmbedder
		want       []memory.Key
		wantInputs int
	}{
		// The wording shares little: lexically it is a new fact, so a second key.
		{"lexical", func(s ports.MemoryStore, _ ports.VectorIndex, _ *topicEmbedder) extraction.SimilarMemories {
			return &extraction.LexicalSimilar{Store: s}
		}, &topicEmbedder{topics: topics}, []memory.Key{memory.MustParseKey("allergy.peanuts"), memory.MustParseKey("health.nut_allergy")}, 0},
		// By meaning it is the same fact: it reuses the existing key, and only the
		// candidate was embedded.
		{"stored vectors", vectorSimilar, &topicEmbedder{topics: topics}, []memory.Key{memory.MustParseKey("allergy.peanuts")}, 1},
		// The model failing falls back to the lexical comparison, not to a failure.
		{"embeddings down", vectorSimilar, &topicEmbedder{topics: topics, err: errors.New("down")},
			[]memory.Key{memory.MustParseKey("allergy.peanuts"), memory.MustParseKey("health.nut_allergy")}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			stores, ix := indexedStore(t, &topicEmbedder{topics: topics}, existing)
			e := newEnv(t, envOptions{extractor: stubExtractor{cands: paraphrase}, refiner: keepAll{},
				memories: stores.Memories, messages: stores.Messages, similar: tt.similar(stores.Memories, ix, tt.embedder)})
			e.post("c1", user("m1", "I have a peanut allergy, remember that."))
			e.tick()
			var got []memory.Key
			for _, k := range keysOf(e.live()) {
				if !strings.HasPrefix(k.String(), "garden.") {
					got = append(got, k)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("live keys %v, want %v", got, tt.want)
			}
			if in := tt.embedder.Inputs(); len(in) != tt.wantInputs || len(in) == 1 && in[0] != "[fact] health.nut_allergy: User has a peanut allergy." {
				t.Errorf("embedded %q, want %d input(s): the candidate's index text, never an existing memory", in, tt.wantInputs)
			}
		})
	}
}

func vectorSimilar(s ports.MemoryStore, ix ports.VectorIndex, emb *topicEmbedder) extraction.SimilarMemories {
	return &extraction.VectorSimilar{Embedder: emb, Vectors: ix, Store: s, Reader: s.(extraction.MemoriesByID), Cosine: true}
}

func TestPipeline_theIndexerEmbedsNoTextExtractionAlreadyEmbedded(t *testing.T) {
	t.Parallel()
	topics := []string{"peanut", "jazz"}
	emb := &topicEmbedder{topics: topics}
	handoff := indexing.NewHandoff(emb, 0, 0, nil)
	stores, ix := indexedStore(t, &topicEmbedder{topics: topics}, map[string]string{"music.likes.jazz": "User loves jazz."})
	store, msgs := stores.Memories, stores.Messages
	cands := []candidate.Candidate{{Op: candidate.OpAdd, Type: memory.TypeFact, Key: "allergy.peanuts", Content: "User is allergic to peanuts.", Importance: 4, Confidence: 0.9}}
	e := newEnv(t, envOptions{extractor: stubExtractor{cands: cands}, refiner: keepAll{}, memories: store, messages: msgs,
		similar: &extraction.VectorSimilar{Embedder: handoff.Producer(), Vectors: ix, Store: store, Reader: store, Cosine: true}})
	e.post("c1", user("m1", "I am allergic to peanuts."))
	e.tick()
	if _, ok := e.live()[memory.MustParseKey("allergy.peanuts")]; !ok {
		t.Fatalf("memories %v", keysOf(e.live()))
	}

	indexer := indexing.New(stores.Vectors, handoff.Consumer(), ix, e.clock, indexing.Options{Worker: "ix"}, nil)
	for {
		rep, err := indexer.SyncMemories(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if rep.Claimed == 0 {
			break
		}
	}
	text := "[fact] allergy.peanuts: User is allergic to peanuts."
	var seen int
	for _, in := range emb.Inputs() {
		if in == text {
			seen++
		}
	}
	if seen != 1 || handoff.Reused() != 1 {
		t.Errorf("the new memory's text was embedded %d times (handoff reused %d), want once: by extraction, reused by the indexer; inputs %q",
			seen, handoff.Reused(), emb.Inputs())
	}
	hits, err := ix.Search(context.Background(), ports.VectorQuery{Tenant: scope.Tenant, User: scope.User, Vector: []float32{1, 0, 0.05}, Limit: 5})
	if err != nil || len(hits) == 0 {
		t.Fatalf("the indexed memory is not searchable: %v %v", hits, err)
	}
}

package indexing_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"engram/adapters/localembed"
	"engram/adapters/localvec"
	"engram/adapters/sqlstore"
	"engram/adapters/ulids"
	"engram/app/indexing"
	"engram/app/memories"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
	"engram/test/fakeclock"
	"engram/test/teststore"
)

var (
	scope = memory.Scope{Tenant: "t1", User: "alice"}
	start = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
)

const testDim = 64

// countingEmbedder wraps the local embedder: it counts the texts it is asked for,
// can be made to fail, can run a hook during a call, and can claim another model.
type countingEmbedder struct {
	ports.Embedder
	model string

	mu     sync.Mutex
	texts  []string
	calls  int
	fail   error
	during func()
}

func newEmbedder(t *testing.T, model string) *countingEmbedder {
	t.Helper()
	e, err := localembed.New(localembed.Options{Dimension: testDim})
	if err != nil {
		t.Fatal(err)
	}
	return &countingEmbedder{Embedder: e, model: model}
}

func (e *countingEmbedder) Model() string { return e.model }

func (e *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	fail, during := e.fail, e.during
	e.calls++
	if fail == nil {
		e.texts = append(e.texts, texts...)
	}
	e.mu.Unlock()
	if during != nil {
		during()
	}
	if fail != nil {
		return nil, fail
	}
	out, err := e.Embedder.Embed(ctx, texts)
	for i, t := range texts {
		switch {
		case err != nil:
		case strings.Contains(t, "BLANK"): // nothing an embedder can read
			out[i] = make([]float32, len(out[i]))
		case strings.Contains(t, "POISON"): // a broken embedder's output
			out[i][0] = float32(math.NaN())
		}
	}
	return out, err
}

func (e *countingEmbedder) Texts() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.texts)
}

func (e *countingEmbedder) setFail(err error) {
	e.mu.Lock()
	e.fail = err
	e.mu.Unlock()
}

func (e *countingEmbedder) setDuring(f func()) {
	e.mu.Lock()
	e.during = f
	e.mu.Unlock()
}

// flakyIndex fails its writes while down is set.
type flakyIndex struct {
	ports.VectorIndex
	mu   sync.Mutex
	down bool
}

var errIndexDown = errors.New("vector store: connection refused")

func (f *flakyIndex) setDown(down bool) {
	f.mu.Lock()
	f.down = down
	f.mu.Unlock()
}

func (f *flakyIndex) isDown() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.down
}

func (f *flakyIndex) Upsert(ctx context.Context, records []ports.VectorRecord) error {
	if f.isDown() {
		return errIndexDown
	}
	return f.VectorIndex.Upsert(ctx, records)
}

func (f *flakyIndex) Delete(ctx context.Context, tenant string, ids []string) error {
	if f.isDown() {
		return errIndexDown
	}
	return f.VectorIndex.Delete(ctx, tenant, ids)
}

// world is one indexer over the SQLite stores, the local embedder and localvec.
type world struct {
	t        *testing.T
	clock    *fakeclock.Clock
	mems     *sqlstore.MemoryStore
	msgs     *sqlstore.MessageStore
	sync     *sqlstore.VectorQueue
	embedder *countingEmbedder
	vectors  *localvec.Index
	index    *flakyIndex
	ix       *indexing.Indexer
	svc      *memories.Service
	ids      ports.IDs
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{t: t, clock: fakeclock.New(start), ids: ulids.New()}
	stores := teststore.New(t)
	w.mems, w.msgs, w.sync = stores.Memories, stores.Messages, stores.Vectors
	w.embedder = newEmbedder(t, "test-model-v1")
	w.useIndex()
	w.svc = memories.New(w.mems, w.clock, w.ids, memory.Policy{})
	return w
}

// useIndex gives the indexer a fresh, empty vector index.
func (w *world) useIndex() {
	v, err := localvec.New(localvec.Options{Dimension: testDim})
	if err != nil {
		w.t.Fatal(err)
	}
	w.vectors = v
	w.index = &flakyIndex{VectorIndex: v}
	w.ix = indexing.New(w.sync, w.embedder, w.index, w.clock, indexing.Options{Worker: "test-indexer", BatchSize: 8}, nil)
}

func (w *world) save(key, content string) memory.Memory {
	w.t.Helper()
	res, err := w.svc.Save(context.Background(), memories.Save{Scope: scope, Key: key, Draft: memory.DraftInput{Type: "fact", Content: content}})
	if err != nil {
		w.t.Fatalf("save %s: %v", key, err)
	}
	return res.Memory
}

func (w *world) get(key string) memory.Memory {
	w.t.Helper()
	m, err := w.mems.Get(context.Background(), scope, memory.MustParseKey(key))
	if err != nil {
		w.t.Fatalf("get %s: %v", key, err)
	}
	return m
}

func (w *world) drain() indexing.Totals {
	w.t.Helper()
	tot, err := w.ix.Drain(context.Background(), nil)
	if err != nil {
		w.t.Fatalf("Drain: %v", err)
	}
	return tot
}

// search returns the ids of the user's nearest vectors to text.
func (w *world) search(text string, kinds ...memory.Kind) []string {
	w.t.Helper()
	q, err := w.embedder.Embedder.Embed(context.Background(), []string{text})
	if err != nil {
		w.t.Fatal(err)
	}
	hits, err := w.vectors.Search(context.Background(), ports.VectorQuery{Tenant: scope.Tenant, User: scope.User, Kinds: kinds, Vector: q[0], Limit: 100})
	if err != nil {
		w.t.Fatal(err)
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}

// vectorOf is the stored vector of id, nil when the index has none.
func (w *world) vectorOf(id string) []float32 {
	for _, r := range w.vectors.Snapshot() {
		if r.ID == id {
			return r.Vector
		}
	}
	return nil
}

// post stores messages of one conversation, one second apart.
func (w *world) post(conv string, turns ...[2]string) []conversation.Message {
	w.t.Helper()
	var msgs []conversation.Message
	for _, turn := range turns {
		w.clock.Advance(time.Second)
		m, err := conversation.New(scope, conversation.Input{
			ConversationID: conv, Role: turn[0], Content: turn[1],
		}, w.ids.New(), w.clock.Now(), 0)
		if err != nil {
			w.t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	if _, err := w.msgs.Ingest(context.Background(), scope, msgs); err != nil {
		w.t.Fatal(err)
	}
	return msgs
}

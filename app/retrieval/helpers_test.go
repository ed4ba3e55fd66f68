package retrieval_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"engram/adapters/lexical"
	"engram/adapters/localembed"
	"engram/adapters/localvec"
	"engram/adapters/sqlstore"
	"engram/adapters/textanalysis"
	"engram/adapters/ulids"
	"engram/app/indexing"
	"engram/app/memories"
	"engram/app/messages"
	"engram/app/retrieval"
	"engram/domain/conversation"
	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/ports"
	"engram/test/fakeclock"
	"engram/test/logbuf"
	"engram/test/teststore"
)

var (
	alice = memory.Scope{Tenant: "t1", User: "alice"}
	start = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
)

// flakyIndex is a vector index that can fail or hang on Search, and counts calls.
type flakyIndex struct {
	ports.VectorIndex
	mode  atomic.Int32 // 0 ok, 1 error, 2 hang until ctx ends, 3 hang ignoring ctx (until release)
	calls atomic.Int32
	hold  chan struct{}
}

const (
	indexOK = iota
	indexFails
	indexHangs
	indexIgnoresDeadline
	indexRefuses
)

func (f *flakyIndex) Search(ctx context.Context, q ports.VectorQuery) ([]ports.VectorHit, error) {
	f.calls.Add(1)
	switch f.mode.Load() {
	case indexFails:
		return nil, fmt.Errorf("milvus: search: %w: connection refused", ports.ErrUnavailable)
	case indexRefuses:
		return nil, invalid.Field("vector", "must have a non-zero, finite length")
	case indexHangs:
		<-ctx.Done()
		return nil, ctx.Err()
	case indexIgnoresDeadline:
		<-f.hold
		return nil, fmt.Errorf("too late: %w", ports.ErrUnavailable)
	}
	return f.VectorIndex.Search(ctx, q)
}

// env is the retrieval use case over the SQLite stores, with the local embedder and
// an in-process vector index that the tests fill themselves (the indexer role is
// not this package's).
type env struct {
	t        *testing.T
	clock    *fakeclock.Clock
	analyzer *textanalysis.Analyzer
	embedder *localembed.Embedder
	vectors  *flakyIndex
	lexical  *sqlstore.LexicalDocs
	searcher *lexical.Searcher
	store    *sqlstore.MemoryStore
	msgStore *sqlstore.MessageStore
	indexer  *indexing.LexicalIndexer
	guard    *retrieval.VectorGuard
	logs     *logbuf.Buffer
	memories *memories.Service
	messages *messages.Service
	access   *retrieval.AccessTracker
	svc      *retrieval.Service
}

func newEnv(t *testing.T, opts retrieval.Options) *env {
	t.Helper()
	return newGuardedEnv(t, opts, retrieval.GuardOptions{})
}

// newGuardedEnv is newEnv with the vector guard's options (deadline, breaker).
func newGuardedEnv(t *testing.T, opts retrieval.Options, guard retrieval.GuardOptions) *env {
	t.Helper()
	e := &env{t: t, clock: fakeclock.New(start), analyzer: textanalysis.New(textanalysis.Options{})}
	var err error
	if e.embedder, err = localembed.New(localembed.Options{Analyzer: e.analyzer}); err != nil {
		t.Fatal(err)
	}
	ix, err := localvec.New(localvec.Options{Dimension: e.embedder.Dimension()})
	if err != nil {
		t.Fatal(err)
	}
	e.vectors = &flakyIndex{VectorIndex: ix, hold: make(chan struct{})}
	t.Cleanup(func() { close(e.vectors.hold) })
	stores := teststore.New(t)
	e.lexical, e.store, e.msgStore = stores.Lexical, stores.IndexLexically(e.analyzer), stores.Messages
	ids := ulids.New()
	e.searcher = lexical.New(e.lexical, lexical.Options{})
	e.indexer = indexing.NewLexicalIndexer(e.analyzer, e.lexical, stores.Cursors, e.store, e.msgStore, e.clock, indexing.LexicalOptions{MessageLag: -1})
	e.memories = memories.New(e.store, e.clock, ids, memory.Policy{DefaultTTLDays: 180})
	e.messages = messages.New(e.msgStore, e.clock, ids, messages.Options{Debounce: time.Second})
	e.access = retrieval.NewAccessTracker(e.store, retrieval.AccessOptions{FlushInterval: time.Hour})
	e.logs = &logbuf.Buffer{}
	guard.Logger = slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	e.guard = retrieval.NewVectorGuard(e.clock, guard)
	e.svc = retrieval.New(retrieval.Deps{
		Analyzer: e.analyzer, Lexical: e.searcher, Memories: e.store, Messages: e.msgStore,
		Embedder: e.guard.Embedder(e.embedder), Vectors: e.guard.Index(e.vectors), Access: e.access, Clock: e.clock,
	}, opts)
	return e
}

// save writes a memory through the memories use case and its vector by hand.
func (e *env) save(scope memory.Scope, key, typ, content string) memory.Memory {
	e.t.Helper()
	res, err := e.memories.Save(context.Background(), memories.Save{Scope: scope, Key: key,
		Draft: memory.DraftInput{Type: typ, Content: content}})
	if err != nil {
		e.t.Fatalf("save %s: %v", key, err)
	}
	e.upsertVector(ports.VectorRecord{ID: res.Memory.ID(), Tenant: scope.Tenant, User: scope.User,
		Kind: memory.KindMemory, MemoryType: typ, At: res.Memory.UpdatedAt()}, res.Memory.IndexText())
	return res.Memory
}

// upsertVectorOf writes a memory's vector by hand (the indexer role is not this
// package's).
func (e *env) upsertVectorOf(m memory.Memory) {
	e.t.Helper()
	e.upsertVector(ports.VectorRecord{ID: m.ID(), Tenant: m.Scope().Tenant, User: m.Scope().User,
		Kind: memory.KindMemory, MemoryType: string(m.Type()), At: m.UpdatedAt()}, m.IndexText())
}

func (e *env) upsertVector(r ports.VectorRecord, text string) {
	e.t.Helper()
	v, err := e.embedder.Embed(context.Background(), []string{text})
	if err != nil {
		e.t.Fatal(err)
	}
	r.Vector = v[0]
	if err := e.vectors.VectorIndex.Upsert(context.Background(), []ports.VectorRecord{r}); err != nil {
		e.t.Fatal(err)
	}
}

// post stores messages of one conversation, indexes them (lexical pass and
// vectors) and returns them as stored.
func (e *env) post(scope memory.Scope, conv string, msgs ...conversation.Input) []conversation.Message {
	e.t.Helper()
	for i := range msgs {
		msgs[i].ConversationID = conv
		if msgs[i].Role == "" {
			msgs[i].Role = "user"
		}
	}
	posted, err := e.messages.PostBatch(context.Background(), messages.PostBatch{Scope: scope, Messages: msgs})
	if err != nil {
		e.t.Fatalf("post: %v", err)
	}
	if _, err := e.indexer.IndexMessages(context.Background()); err != nil {
		e.t.Fatalf("index messages: %v", err)
	}
	out := make([]conversation.Message, len(posted))
	for i, p := range posted {
		out[i] = p.Message
		e.upsertVector(ports.VectorRecord{ID: p.Message.Seq, Tenant: scope.Tenant, User: scope.User,
			Kind: memory.KindMessage, ConversationID: conv, At: p.Message.CreatedAt}, p.Message.IndexText())
	}
	return out
}

func (e *env) search(q retrieval.Search) retrieval.Result {
	e.t.Helper()
	if q.Scope == (memory.Scope{}) {
		q.Scope = alice
	}
	res, err := e.svc.Search(context.Background(), q)
	if err != nil {
		e.t.Fatalf("search %+v: %v", q, err)
	}
	return res
}

func keysOf(res retrieval.Result) []string {
	var out []string
	for _, it := range res.Items {
		switch {
		case it.Memory != nil:
			out = append(out, it.Memory.Key().String())
		case it.Message != nil:
			out = append(out, it.Message.ID)
		}
	}
	return out
}

func memoriesSave(scope memory.Scope, key, typ, content string) memories.Save {
	return memories.Save{Scope: scope, Key: key, Draft: memory.DraftInput{Type: typ, Content: content}}
}

func memoriesSaveTTL(scope memory.Scope, key, content string, ttlDays *int) memories.Save {
	return memories.Save{Scope: scope, Key: key, Draft: memory.DraftInput{Type: "preference", Content: content, TTLDays: ttlDays}}
}

func memoriesDelete(scope memory.Scope, key string) memories.Delete {
	return memories.Delete{Scope: scope, Key: key}
}

func memoriesSaveImportance(scope memory.Scope, key, content string, importance int) memories.Save {
	return memories.Save{Scope: scope, Key: key, Draft: memory.DraftInput{Type: "fact", Content: content, Importance: &importance}}
}

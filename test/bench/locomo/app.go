package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	lexicalpkg "engram/adapters/lexical"
	"engram/adapters/lexicon"
	"engram/adapters/localembed"
	"engram/adapters/localvec"
	"engram/adapters/sqlstore"
	"engram/adapters/textanalysis"
	"engram/adapters/ulids"
	"engram/app/indexing"
	"engram/app/messages"
	"engram/app/retrieval"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
)

// The app methods measure the product through its use cases, not the relevance
// core: each conversation is posted as one user's messages with the messages use
// case (one engram conversation per session, the speaker as the message's name,
// the session's date as its time, the turn's text plus its image caption as the
// content), indexed by the indexer role's use cases (app/indexing for vectors,
// app/indexing's lexical pass), and every question is asked through the search
// use case with scope messages. Stores are SQLite files in a temporary
// directory, as `engram serve` uses them by default.
func init() {
	methods["app"] = method{"the product through the app: messages posted, indexed by the indexer use cases, searched in mode auto", newAppRetriever(retrieval.ModeAuto)}
	methods["app-lexical"] = method{"the product through the app, mode lexical (the fallback when vectors are down)", newAppRetriever(retrieval.ModeLexical)}
	methods["app-dense"] = method{"the product through the app, mode dense (local embedder)", newAppRetriever(retrieval.ModeDense)}
}

// benchClock is the search's "now"; recency hardly matters to 2023 conversations.
type benchClock struct{ now time.Time }

func (c benchClock) Now() time.Time { return c.now }

type appRetriever struct {
	config  appConfig
	mode    retrieval.Mode
	scope   memory.Scope
	search  *retrieval.Service
	cleanup func()
}

var (
	appCleanupMu sync.Mutex
	appCleanups  []func()
)

// cleanupApp closes and removes what the app methods opened.
func cleanupApp() {
	appCleanupMu.Lock()
	defer appCleanupMu.Unlock()
	for _, f := range appCleanups {
		f()
	}
	appCleanups = nil
}

// appStores are the ports one engram instance works on.
type appStores struct {
	memories interface {
		ports.MemoryStore
		retrieval.MemoryReader
		indexing.ChangedMemories
	}
	messages interface {
		ports.MessageLog
		retrieval.MessageReader
		indexing.MessageFeed
	}
	lexical interface {
		ports.LexicalDocs
		ports.LexicalFeed
	}
	cursors ports.LexicalCursors
	sync    ports.VectorQueue
	vectors ports.VectorIndex
	close   func()
}

func openAppStores(ctx context.Context, dim int) (appStores, error) {
	dir, err := os.MkdirTemp("", "engram-locomo-")
	if err != nil {
		return appStores{}, err
	}
	db, err := sqlstore.Open(ctx, sqlstore.Options{DataDir: dir})
	if err != nil {
		_ = os.RemoveAll(dir)
		return appStores{}, err
	}
	var once sync.Once
	closeDB := func() { once.Do(func() { _ = db.Close(); _ = os.RemoveAll(dir) }) }
	if err := db.Migrate(ctx); err != nil {
		closeDB()
		return appStores{}, err
	}
	vectors, err := localvec.OpenDurable(ctx, sqlstore.NewLocalVectorStore(db, "locomo", dim), localvec.Options{Dimension: dim})
	if err != nil {
		closeDB()
		return appStores{}, err
	}
	appCleanupMu.Lock()
	appCleanups = append(appCleanups, closeDB)
	appCleanupMu.Unlock()
	return appStores{
		memories: sqlstore.NewMemoryStore(db), messages: sqlstore.NewMessageStore(db), lexical: sqlstore.NewLexicalDocs(db), cursors: sqlstore.NewLexicalCursors(db),
		sync: sqlstore.NewVectorQueue(db), vectors: vectors, close: closeDB,
	}, nil
}

func newAppRetriever(mode retrieval.Mode) func() Retriever {
	return func() Retriever { return newConfiguredApp(mode, appFlagConfig)() }
}

// appFlagConfig is -app-config over the product's calibration (set by run).
var appFlagConfig = productAppConfig

func newConfiguredApp(mode retrieval.Mode, c appConfig) func() Retriever {
	return func() Retriever {
		return &appRetriever{config: c, mode: mode, scope: memory.Scope{Tenant: "bench", User: "locomo"}}
	}
}

// Index builds a fresh engram (stores, indexers, search) and feeds it the turns.
func (a *appRetriever) Index(ctx context.Context, turns []Turn) error {
	clock := benchClock{now: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
	analyzer := textanalysis.New(textanalysis.Options{})
	embedder, err := localembed.New(localembed.Options{Analyzer: analyzer})
	if err != nil {
		return err
	}
	if a.cleanup != nil {
		a.cleanup()
	}
	st, err := openAppStores(ctx, embedder.Dimension())
	if err != nil {
		return err
	}
	a.cleanup = st.close
	mems, msgs, lexical, vectors := st.memories, st.messages, st.lexical, st.vectors
	ingest := messages.New(msgs, clock, ulids.New(), messages.Options{Debounce: time.Hour})

	var batch []conversation.Input
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		_, err := ingest.PostBatch(ctx, messages.PostBatch{Scope: a.scope, Messages: batch})
		batch = batch[:0]
		return err
	}
	for _, t := range turns {
		batch = append(batch, conversation.Input{
			ConversationID: fmt.Sprintf("session-%d", t.Session), MessageID: t.ID, Role: "user",
			Name: t.Speaker, Content: t.Content, CreatedAt: t.At,
		})
		if len(batch) == messages.MaxBatch {
			if err := flush(); err != nil {
				return fmt.Errorf("post messages: %w", err)
			}
		}
	}
	if err := flush(); err != nil {
		return fmt.Errorf("post messages: %w", err)
	}

	// The indexer role's work, run to completion: lexical documents, then vectors.
	lexIndexer := indexing.NewLexicalIndexer(analyzer, lexical, st.cursors, mems, msgs, clock, indexing.LexicalOptions{MessageLag: -1})
	if _, err := lexIndexer.IndexMessages(ctx); err != nil {
		return fmt.Errorf("lexical index: %w", err)
	}
	vecIndexer := indexing.New(st.sync, embedder, vectors, clock, indexing.Options{BatchSize: 256, Lease: time.Hour}, nil)
	for {
		rep, err := vecIndexer.SyncMessages(ctx)
		if err != nil {
			return fmt.Errorf("vector index: %w", err)
		}
		if rep.Failed > 0 {
			return fmt.Errorf("vector index: %d messages failed: %v", rep.Failed, rep.Failures)
		}
		if rep.Claimed == 0 {
			break
		}
	}
	// Quality, not latency, is measured here: a busy machine must not turn a slow
	// vector search into a lexical answer.
	guard := retrieval.NewVectorGuard(clock, retrieval.GuardOptions{Timeout: 10 * time.Second})
	opts := a.config.options()
	deps := retrieval.Deps{
		Analyzer: analyzer, Lexical: lexicalpkg.New(lexical, lexicalpkg.Options{Recipe: opts.Recipe}), Memories: mems, Messages: msgs,
		Embedder: guard.Embedder(embedder), Vectors: guard.Index(vectors), Clock: clock,
	}
	if a.config.Expand > 0 {
		deps.Expander = lexicon.New(analyzer, lexicon.DefaultWeights.Scaled(a.config.Expand))
	}
	a.search = retrieval.New(deps, opts)
	return nil
}

// Search asks the search use case; a fallback to lexical would measure the wrong
// method, so it is an error.
func (a *appRetriever) Search(ctx context.Context, question string, k int) ([]string, error) {
	res, err := a.search.Search(ctx, retrieval.Search{
		Scope: a.scope, Query: question, Within: retrieval.WithinMessages, Mode: string(a.mode), Limit: min(k, retrieval.MaxLimit),
	})
	if err != nil {
		return nil, err
	}
	if res.FallbackReason != "" {
		return nil, fmt.Errorf("search fell back to lexical: %s", res.FallbackReason)
	}
	ids := make([]string, 0, len(res.Items))
	for _, it := range res.Items {
		ids = append(ids, it.Message.ID)
	}
	return ids, nil
}

package main

import (
	"context"
	"engram/bootstrap"
	"fmt"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"engram/adapters/lexical"
	"engram/adapters/lexicon"
	"engram/adapters/localembed"
	"engram/adapters/localvec"
	"engram/adapters/redisstore"
	"engram/adapters/rules"
	"engram/adapters/sqlstore"
	"engram/adapters/textanalysis"
	"engram/adapters/ulids"
	"engram/app/contextbuild"
	"engram/app/indexing"
	"engram/app/messages"
	"engram/app/profiles"
	"engram/app/retrieval"
	"engram/app/sessions"
	"engram/domain/memory"
	"engram/domain/session"
	"engram/ports"
	"engram/test/testenv"
)

// rig is one engram in process, wired as bootstrap wires the api role (search,
// sessions, profiles, the context call and its trace writer) plus what the
// worker and indexer roles do, as calls the benchmark makes itself.
type rig struct {
	db       *sqlstore.DB
	clock    ports.Clock
	ids      ports.IDs
	analyzer ports.TextAnalyzer
	memories *sqlstore.MemoryStore
	messages *sqlstore.MessageStore
	ingest   *messages.Service
	store    ports.SessionStore
	folds    []ports.SessionFolds
	sessions *sessions.Service
	lexical  *indexing.LexicalIndexer
	vectors  *indexing.Indexer
	search   *retrieval.Service
	context  *contextbuild.Service
	recorder *contextbuild.TraceRecorder
	shape    string
	close    []func()
}

type rigOptions struct {
	dir, db, redis string
	clock          ports.Clock
	mode           string // LONG_TERM_MEMORY_RETRIEVE_MODE
}

func newRig(ctx context.Context, o rigOptions) (*rig, error) {
	db, err := sqlstore.Open(ctx, sqlstore.Options{DatabaseURL: o.db, DataDir: o.dir})
	if err != nil {
		return nil, err
	}
	an := textanalysis.New(textanalysis.Options{})
	r := &rig{db: db, clock: o.clock, ids: ulids.New(), analyzer: an, shape: "SQLite, SQL sessions"}
	r.close = append(r.close, func() { _ = db.Close() })
	if err := db.Migrate(ctx); err != nil {
		return nil, err
	}
	if o.db != "" {
		r.shape = "PostgreSQL, SQL sessions"
	}
	emb, err := localembed.New(localembed.Options{Analyzer: an})
	if err != nil {
		return nil, err
	}
	vectors, err := localvec.OpenDurable(ctx, sqlstore.NewLocalVectorStore(db, emb.Model(), emb.Dimension()), localvec.Options{Dimension: emb.Dimension()})
	if err != nil {
		return nil, err
	}
	r.memories, r.messages = sqlstore.NewMemoryStore(db), sqlstore.NewMessageStore(db)
	r.memories.IndexLexically(func(m memory.Memory) (ports.LexicalDoc, bool) { return indexing.MemoryDocument(r.analyzer, m) })
	lexIndex := sqlstore.NewLexicalDocs(db)
	r.lexical = indexing.NewLexicalIndexer(r.analyzer, lexIndex, sqlstore.NewLexicalCursors(db), r.memories, r.messages, r.clock, indexing.LexicalOptions{MessageLag: -1})
	r.vectors = indexing.New(sqlstore.NewVectorQueue(db), emb, vectors, r.clock, indexing.Options{BatchSize: 512, Lease: time.Hour}, nil)
	guard := retrieval.NewVectorGuard(r.clock, retrieval.GuardOptions{})
	r.search = retrieval.New(retrieval.Deps{
		Analyzer: r.analyzer, Lexical: lexical.New(lexIndex, lexical.Options{}), Memories: r.memories, Messages: r.messages,
		Embedder: guard.Embedder(emb), Vectors: guard.Index(vectors), Clock: r.clock,
		Expander: lexicon.New(r.analyzer, lexicon.Weights{}), // ENGRAM_QUERY_EXPANSION's default
	}, retrieval.Options{MinScore: 0.12, DefaultMode: retrieval.Mode(o.mode)}) // LONG_TERM_MEMORY_MIN_SCORE's default; the rest default
	r.ingest = messages.New(r.messages, r.clock, r.ids, messages.Options{})
	if err := r.openSessions(ctx, o); err != nil {
		return nil, err
	}
	r.sessions = sessions.New(sessions.Deps{Store: r.store, Conversations: r.ingest, Clock: r.clock, IDs: r.ids}, sessions.Options{})
	r.recorder = contextbuild.NewTraceRecorder(sqlstore.NewTraceStore(db), contextbuild.RecorderOptions{})
	r.background(r.recorder.Run)
	r.context = contextbuild.New(contextbuild.Deps{
		Retriever: bootstrap.ContextRetriever{Search: r.search, MessagesMode: bootstrap.MessagesModeFor(o.mode)}, Sessions: r.store,
		Profiles: profiles.New(profiles.Deps{Profiles: sqlstore.NewProfileStore(db)}, profiles.Options{}),
		Analyzer: r.analyzer, Traces: r.recorder, Reader: r.recorder, Clock: r.clock, IDs: r.ids,
	}, contextbuild.Options{MinScore: 0.12})
	return r, nil
}

// openSessions is the session store bootstrap picks: SQL, or Redis in front of
// SQL with the relay writing the queued turns into the messages table.
func (r *rig) openSessions(ctx context.Context, o rigOptions) error {
	limits := session.Limits{}.WithDefaults()
	sql := sqlstore.NewSessionStore(r.db, r.clock, limits)
	r.store, r.folds = sql, []ports.SessionFolds{sql}
	if o.redis == "" {
		return nil
	}
	prefix := "engram-bench-ctx-" + strings.ToLower(ulid.Make().String())
	rs, err := redisstore.New(redisstore.Options{Addr: o.redis, Prefix: prefix, Limits: limits, ClientCache: true, RelayTurns: true})
	if err != nil {
		return err
	}
	r.close = append(r.close, func() { _ = rs.Close(); _ = testenv.DeleteRedisPrefix(o.redis, prefix) })
	r.store = sessions.NewFailover(rs, sql, sessions.FailoverOptions{PrimaryRelays: true})
	r.folds = []ports.SessionFolds{rs, sql}
	r.shape = strings.Replace(r.shape, "SQL sessions", "Redis sessions", 1)
	relay := sessions.NewRelay(rs, r.ingest, sessions.RelayOptions{Consumer: "bench"})
	r.background(relay.Run)
	return nil
}

// background runs fn until the rig closes.
func (r *rig) background(fn func(ctx context.Context)) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); fn(ctx) }()
	r.close = append(r.close, func() { cancel(); <-done })
}

func (r *rig) Close() {
	for i := len(r.close) - 1; i >= 0; i-- {
		r.close[i]()
	}
}

// index runs the indexer role's passes to completion: lexical documents of the
// new messages, then vectors of every DIRTY memory and message.
func (r *rig) index(ctx context.Context) error {
	if _, err := r.lexical.IndexMessages(ctx); err != nil {
		return err
	}
	for _, sync := range []func(context.Context) (indexing.Report, error){r.vectors.SyncMemories, r.vectors.SyncMessages} {
		for {
			rep, err := sync(ctx)
			if err != nil {
				return err
			}
			if rep.Failed > 0 {
				return fmt.Errorf("vector sync: %d failed: %v", rep.Failed, rep.Failures)
			}
			if rep.Claimed == 0 {
				break
			}
		}
	}
	return nil
}

// waitMessages waits until the user has want messages (with Redis, the relay
// writes them after the append).
func (r *rig) waitMessages(ctx context.Context, scope memory.Scope, want int64) error {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		act, err := r.messages.Activity(ctx, scope.Tenant, []string{scope.User})
		if err != nil {
			return err
		}
		n := act[scope.User].Count
		if n >= want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d messages stored after 2 minutes", n, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// foldAll folds every session queued for a fold, with the offline summarizer.
func (r *rig) foldAll(ctx context.Context) (int, error) {
	f := sessions.NewFolder(r.folds, rules.NewSummarizer(rules.SummarizerOptions{}), nil, r.clock, sessions.FolderOptions{Holder: "bench"})
	total := 0
	for {
		n, err := f.FoldDue(ctx)
		total += n
		if err != nil || n == 0 {
			return total, err
		}
	}
}

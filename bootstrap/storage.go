package bootstrap

import (
	"context"
	"fmt"

	"go.uber.org/fx"

	"engram/adapters/clock"
	"engram/adapters/metrics"
	"engram/adapters/sqlstore"
	"engram/app/contextbuild"
	"engram/app/extraction"
	"engram/app/indexing"
	"engram/bootstrap/config"
	"engram/domain/memory"
	"engram/ports"
)

// storageModule is the truth store: the database, opened once when the process
// starts and closed last, and each SQL store served from it, provided once as
// its concrete type and, with fx.As, as every port it plays. The memory store and
// the message log use cases write through are decorated here, in one place.
var storageModule = fx.Module("storage",
	fx.Provide(
		provideDatabase,
		fx.Annotate(newSQLMemoryStore, fx.As(fx.Self()), fx.As(new(contextbuild.StandingReader))),
		fx.Annotate(newSQLMessageStore, fx.As(fx.Self()), fx.As(new(extraction.ContextReader))),
		fx.Annotate(sqlstore.NewAPIKeyStore, fx.As(fx.Self()), fx.As(new(ports.APIKeyStore))),
		fx.Annotate(sqlstore.NewJobStore, fx.As(fx.Self()), fx.As(new(ports.JobStore))),
		fx.Annotate(sqlstore.NewLexicalDocs, fx.As(fx.Self()), fx.As(new(ports.LexicalDocs)), fx.As(new(ports.LexicalFeed))),
		fx.Annotate(sqlstore.NewLexicalCursors, fx.As(new(ports.LexicalCursors))),
		fx.Annotate(sqlstore.NewVectorQueue, fx.As(fx.Self()), fx.As(new(ports.VectorQueue)), fx.As(new(ports.VectorRequeuer))),
		fx.Annotate(sqlstore.NewErasureStore, fx.As(new(ports.ErasureStore))),
		fx.Annotate(sqlstore.NewTraceStore, fx.As(fx.Self()), fx.As(new(ports.TraceStore))),
		fx.Annotate(sqlstore.NewAgentConversationStore, fx.As(fx.Self()), fx.As(new(ports.AgentConversationStore))),
		sqlstore.NewScrubber,
		sqlstore.NewUserPurger,
		sqlstore.NewUserRecords,
		sqlstore.NewProfileStore,
		sqlstore.NewActivityStore,
		sqlstore.NewOrgStore,
		sqlstore.NewReportStore,
		indexing.NewSignal,
		newMemoryStore,
		newMessageLog,
	),
	fx.Invoke(func(m *metrics.Metrics, memories *sqlstore.MemoryStore, messages *sqlstore.MessageStore, vectors *sqlstore.VectorQueue) {
		m.GaugeFunc("engram_memories_active", "Active memories across all tenants.", func(ctx context.Context) (int64, error) {
			return memories.CountActive(ctx, clock.System{}.Now())
		})
		m.MessageQueue(messages.Stats)
	}),
)

// provideDatabase opens the database when the process starts and closes it last.
func provideDatabase(lc fx.Lifecycle, cfg config.Config) (*sqlstore.DB, error) {
	db, err := openDatabase(context.Background(), cfg, cfg.Database.AutoMigrate || !cfg.IsPostgres())
	if err != nil {
		return nil, err
	}
	lc.Append(fx.StopHook(db.Close))
	return db, nil
}

// openDatabase opens SQLite in the data directory or PostgreSQL, and migrates when
// asked (always for SQLite: the embedded default must work with no extra step).
func openDatabase(ctx context.Context, cfg config.Config, migrate bool) (*sqlstore.DB, error) {
	db, err := sqlstore.Open(ctx, sqlstore.Options{
		DatabaseURL:  cfg.Database.URL,
		DataDir:      cfg.DataDir,
		MaxOpenConns: cfg.Database.MaxOpenConns,
	})
	if err != nil {
		return nil, storageError(cfg, err)
	}
	if migrate {
		if err := db.Migrate(ctx); err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("migrate: %w", err)
		}
	}
	return db, nil
}

// newSQLMemoryStore is the SQL memory store, writing each memory's lexical
// document in the transaction of every change, so a memory saved through the API
// is found by the next search (the repair pass of the indexer role stays as the
// safety net) and a purge removes it with the memory.
func newSQLMemoryStore(db *sqlstore.DB, an ports.TextAnalyzer) *sqlstore.MemoryStore {
	s := sqlstore.NewMemoryStore(db)
	s.IndexLexically(func(mem memory.Memory) (ports.LexicalDoc, bool) { return indexing.MemoryDocument(an, mem) })
	return s
}

// newSQLMessageStore is the SQL message store with the batching limits of
// ENGRAM_BATCH_* (bootstrap/cost.go).
func newSQLMessageStore(db *sqlstore.DB, cfg config.Config) *sqlstore.MessageStore {
	s := sqlstore.NewMessageStore(db)
	s.SetBatching(batching(cfg))
	return s
}

// newMemoryStore is the memory store every use case writes through: the SQL store
// (with its lexical documents), its metrics, and the signal that wakes the
// indexer after every change.
func newMemoryStore(store *sqlstore.MemoryStore, m *metrics.Metrics, sig *indexing.Signal) ports.MemoryStore {
	return indexing.NotifyMemoryWrites(m.MemoryStore(store), sig)
}

// newMessageLog is the message log ingestion writes through: storing new
// messages wakes the indexer.
func newMessageLog(store *sqlstore.MessageStore, sig *indexing.Signal) ports.MessageLog {
	return indexing.NotifyMessageIngest(store, sig)
}

// withDatabase opens the truth store for a one-shot command.
func withDatabase(ctx context.Context, cfg config.Config, migrate bool, fn func(context.Context, *sqlstore.DB) error) error {
	if ctx == nil {
		ctx = context.Background()
	}
	db, err := openDatabase(ctx, cfg, migrate)
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(ctx, db)
}

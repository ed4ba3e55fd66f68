package bootstrap

import (
	"context"
	"fmt"

	"engram/adapters/clock"
	"engram/adapters/sqlstore"
	"engram/bootstrap/config"
)

// storage is the opened truth store and the stores served from it.
type storage struct {
	db       *sqlstore.DB
	memories *sqlstore.MemoryStore
	apiKeys  *sqlstore.APIKeyStore
	messages *sqlstore.MessageStore
	jobs     *sqlstore.JobStore
}

// openStorage opens SQLite in the data directory or PostgreSQL, and migrates when
// asked (always for SQLite: the embedded default must work with no extra step).
func openStorage(ctx context.Context, cfg config.Config, migrate bool) (*storage, error) {
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
	messages := sqlstore.NewMessageStore(db)
	messages.SetBatching(batching(cfg)) // bootstrap/cost.go
	return &storage{db: db, memories: sqlstore.NewMemoryStore(db), apiKeys: sqlstore.NewAPIKeyStore(db),
		messages: messages, jobs: sqlstore.NewJobStore(db)}, nil
}

func (s *storage) Close() error { return s.db.Close() }

func (s *storage) ping(ctx context.Context) error { return s.db.Ping(ctx) }

func (s *storage) countActive(ctx context.Context) (int64, error) {
	return s.memories.CountActive(ctx, clock.System{}.Now())
}

func (s *storage) hasAPIKeys(ctx context.Context) (bool, error) {
	return s.apiKeys.HasActiveAPIKeys(ctx)
}

// Package teststore gives a test the real stores of adapters/sqlstore over its
// own SQLite database in t.TempDir() (or its own PostgreSQL database), so that tests of the use cases run against
// the storage production uses instead of an in-memory imitation of it.
//
// Migrating a fresh database costs more than the tests that use it, so the
// migrated file is built once per test binary and copied for each test.
package teststore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"engram/adapters/sqlstore"
	"engram/app/indexing"
	"engram/domain/memory"
	"engram/domain/session"
	"engram/ports"
	"engram/test/testenv"
)

// Stores is every store of one database; Memories, Messages and the rest share
// DB, as in production, so a write through one is seen by all.
type Stores struct {
	DB                 *sqlstore.DB
	Memories           *sqlstore.MemoryStore
	Messages           *sqlstore.MessageStore
	Vectors            *sqlstore.VectorQueue
	Lexical            *sqlstore.LexicalDocs
	Cursors            *sqlstore.LexicalCursors
	Jobs               *sqlstore.JobStore
	Erasures           *sqlstore.ErasureStore
	APIKeys            *sqlstore.APIKeyStore
	Profiles           *sqlstore.ProfileStore
	Org                *sqlstore.OrgStore
	Activity           *sqlstore.ActivityStore
	Reports            *sqlstore.ReportStore
	Traces             *sqlstore.TraceStore
	AgentConversations *sqlstore.AgentConversationStore
}

// New opens a migrated SQLite database of its own for t, closed when t ends.
func New(t testing.TB) *Stores {
	t.Helper()
	return For(Open(t))
}

// NewPostgres is New on a database of its own on the test PostgreSQL server
// (testenv.NewPostgresDatabase: skipped without one, failed in CI).
func NewPostgres(t testing.TB) *Stores {
	t.Helper()
	return For(OpenPostgres(t))
}

// For is every store of db.
func For(db *sqlstore.DB) *Stores {
	return &Stores{
		DB:                 db,
		Memories:           sqlstore.NewMemoryStore(db),
		Messages:           sqlstore.NewMessageStore(db),
		Vectors:            sqlstore.NewVectorQueue(db),
		Lexical:            sqlstore.NewLexicalDocs(db),
		Cursors:            sqlstore.NewLexicalCursors(db),
		Jobs:               sqlstore.NewJobStore(db),
		Erasures:           sqlstore.NewErasureStore(db),
		APIKeys:            sqlstore.NewAPIKeyStore(db),
		Profiles:           sqlstore.NewProfileStore(db),
		Org:                sqlstore.NewOrgStore(db),
		Activity:           sqlstore.NewActivityStore(db),
		Reports:            sqlstore.NewReportStore(db),
		Traces:             sqlstore.NewTraceStore(db),
		AgentConversations: sqlstore.NewAgentConversationStore(db),
	}
}

// IndexLexically makes Memories write each memory's lexical document in the
// transaction of its change, as the server does, and returns Memories.
func (s *Stores) IndexLexically(analyzer ports.TextAnalyzer) *sqlstore.MemoryStore {
	s.Memories.IndexLexically(func(m memory.Memory) (ports.LexicalDoc, bool) {
		return indexing.MemoryDocument(analyzer, m)
	})
	return s.Memories
}

// Sessions is the session store of the database, on clock.
func (s *Stores) Sessions(clock ports.Clock, limits session.Limits) *sqlstore.SessionStore {
	return sqlstore.NewSessionStore(s.DB, clock, limits)
}

// Purger is the user purger of the database, on clock.
func (s *Stores) Purger(clock ports.Clock) *sqlstore.UserPurger {
	return sqlstore.NewUserPurger(s.DB, clock)
}

// Open opens a migrated SQLite database of its own for t, closed when t ends.
func Open(t testing.TB) *sqlstore.DB {
	t.Helper()
	file, err := migratedFile()
	if err != nil {
		t.Fatalf("teststore: migrate the template database: %v", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, sqlstore.SQLiteFile), file, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := sqlstore.Open(ctx, sqlstore.Options{DataDir: dir})
	if err != nil {
		t.Fatalf("teststore: open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// OpenPostgres opens a migrated database of its own for t on the test PostgreSQL
// server, closed and dropped when t ends.
func OpenPostgres(t testing.TB) *sqlstore.DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := sqlstore.Open(ctx, sqlstore.Options{DatabaseURL: testenv.NewPostgresDatabase(t)})
	if err != nil {
		t.Fatalf("teststore: open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("teststore: migrate: %v", err)
	}
	return db
}

var template struct {
	once sync.Once
	file []byte
	err  error
}

// migratedFile is the bytes of a freshly migrated, closed database file (closing
// checkpoints the write-ahead log into it), built on the first call.
func migratedFile() ([]byte, error) {
	template.once.Do(func() { template.file, template.err = migrate() })
	return template.file, template.err
}

func migrate() ([]byte, error) {
	dir, err := os.MkdirTemp("", "engram-teststore-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db, err := sqlstore.Open(ctx, sqlstore.Options{DataDir: dir})
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	if err := db.Close(); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, sqlstore.SQLiteFile)
	if _, err := os.Stat(path + "-wal"); err == nil {
		return nil, fmt.Errorf("%s-wal is still there after close: the copy would miss its pages", path)
	}
	return os.ReadFile(path)
}

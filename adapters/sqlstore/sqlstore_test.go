package sqlstore

import (
	"context"
	"testing"
	"time"

	"engram/test/testenv"
)

// Helpers for every test of this package: each returns a migrated database that
// is closed (and, on PostgreSQL, dropped) when the test ends.

// openSQLiteForTest opens a fresh SQLite file in a temporary directory.
func openSQLiteForTest(t testing.TB) *DB {
	t.Helper()
	return openForTest(t, Options{DataDir: t.TempDir()})
}

// openPostgresForTest opens a fresh database on the test server, or skips (fails
// in CI) when there is none.
func openPostgresForTest(t testing.TB) *DB {
	t.Helper()
	return openForTest(t, Options{DatabaseURL: testenv.NewPostgresDatabase(t)})
}

func openForTest(t testing.TB, opts Options) *DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := Open(ctx, opts)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return db
}

package sqlstore

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// writeLog collects what ObserveWrites reports.
type writeLog struct {
	mu   sync.Mutex
	errs []error
}

func (l *writeLog) observe(err error) {
	l.mu.Lock()
	l.errs = append(l.errs, err)
	l.mu.Unlock()
}

func (l *writeLog) last() (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.errs) == 0 {
		return 0, nil
	}
	return len(l.errs), l.errs[len(l.errs)-1]
}

// TestObserveWrites_SQLiteFullThenFreed fills a SQLite file to its page limit:
// the write that does not fit is reported as storage full, and once there is
// room again the next write reports success.
func TestObserveWrites_SQLiteFullThenFreed(t *testing.T) {
	t.Parallel()
	db := openForTest(t, Options{DataDir: t.TempDir(), MaxOpenConns: 1})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var log writeLog
	db.ObserveWrites(log.observe)
	if _, err := db.Bun().ExecContext(ctx, "CREATE TABLE filler (data BLOB)"); err != nil {
		t.Fatal(err)
	}
	var pages int
	if err := db.Bun().QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	// One connection, so the limit holds for every statement below.
	if _, err := db.Bun().ExecContext(ctx, "PRAGMA max_page_count = ?", pages+4); err != nil {
		t.Fatal(err)
	}
	var full error
	for i := 0; i < 100 && full == nil; i++ {
		_, full = db.Bun().NewRaw("INSERT INTO filler (data) VALUES (zeroblob(?))", 4096).Exec(ctx)
	}
	if !IsStorageFull(full) {
		t.Fatalf("the file never filled up: last error %v", full)
	}
	n, got := log.last()
	if got == nil || !IsStorageFull(got) || !strings.Contains(got.Error(), "full") {
		t.Fatalf("after %d observed writes the last is %v, want storage full", n, got)
	}
	if Reason(got) != "database or disk is full" {
		t.Errorf("Reason = %q", Reason(got))
	}

	if _, err := db.Bun().ExecContext(ctx, "PRAGMA max_page_count = 1000000"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Bun().NewRaw("INSERT INTO filler (data) VALUES (zeroblob(?))", 4096).Exec(ctx); err != nil {
		t.Fatalf("write after freeing room: %v", err)
	}
	if _, got := log.last(); got != nil {
		t.Errorf("after a write that fits the last observation is %v, want success", got)
	}
}

func TestObserveWrites_readsAndOtherFailuresAreNotReported(t *testing.T) {
	t.Parallel()
	db := openSQLiteForTest(t)
	ctx := context.Background()
	var log writeLog
	db.ObserveWrites(log.observe)
	if _, err := db.Bun().ExecContext(ctx, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Bun().ExecContext(ctx, "INSERT INTO no_such_table VALUES (1)"); err == nil {
		t.Fatal("insert into a missing table succeeded")
	}
	if n, _ := log.last(); n != 0 {
		t.Errorf("%d observations for a read and a failure that is not about space", n)
	}
}

// TestIsStorageFull_Postgres: PostgreSQL's disk_full (SQLSTATE 53100), raised
// the way the server raises it, is storage full; other errors are not.
func TestIsStorageFull_Postgres(t *testing.T) {
	t.Parallel()
	db := openPostgresForTest(t)
	ctx := context.Background()
	_, err := db.Bun().ExecContext(ctx, `DO $$ BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; END $$`)
	if !IsStorageFull(err) || !IsStorageFull(wrapErr("write", err)) {
		t.Errorf("disk_full is not storage full: %v", err)
	}
	_, other := db.Bun().ExecContext(ctx, `DO $$ BEGIN RAISE EXCEPTION 'nope' USING ERRCODE = 'unique_violation'; END $$`)
	if other == nil || IsStorageFull(other) {
		t.Errorf("a unique violation counts as storage full: %v", other)
	}
	if IsStorageFull(errors.New("disk full")) || IsStorageFull(nil) {
		t.Error("a plain error counts as storage full")
	}
}

func TestDiagnosis_unreachablePostgresNamesTheCause(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Port 1 on loopback: nothing listens there.
	_, err := Open(ctx, Options{DatabaseURL: "postgres://engram:secret@127.0.0.1:1/engram?sslmode=disable"})
	if err == nil {
		t.Fatal("opened a database on 127.0.0.1:1")
	}
	if !IsUnreachable(err) || IsAuthFailure(err) {
		t.Errorf("unreachable = %v, auth failure = %v for %v", IsUnreachable(err), IsAuthFailure(err), err)
	}
	if Reason(err) != "connection refused" {
		t.Errorf("Reason = %q, want connection refused", Reason(err))
	}
}

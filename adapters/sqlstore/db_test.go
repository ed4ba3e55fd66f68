package sqlstore

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"
	"modernc.org/sqlite"

	"engram/domain/memory"
	"engram/migrations"
	"engram/ports"
	"engram/test/testenv"
)

// sameDatabase returns an opener of new, unmigrated handles on one fresh database:
// a SQLite file in a temporary directory, or a database on the PostgreSQL test
// server (the test skips, or fails in CI, without one).
func sameDatabase(t *testing.T, dialect Dialect) func(t *testing.T) *DB {
	t.Helper()
	opts := Options{DataDir: t.TempDir()}
	if dialect == DialectPostgres {
		opts = Options{DatabaseURL: testenv.NewPostgresDatabase(t)}
	}
	return func(t *testing.T) *DB { return openUnmigrated(t, opts) }
}

func openerFor(dialect Dialect) func(t testing.TB) *DB {
	if dialect == DialectPostgres {
		return openPostgresForTest
	}
	return openSQLiteForTest
}

func openUnmigrated(t *testing.T, opts Options) *DB {
	t.Helper()
	db, err := Open(testContext(t), opts)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestMigrate_twiceIsANoOp_SQLite(t *testing.T) { t.Parallel(); testMigrateTwice(t, DialectSQLite) }
func TestMigrate_twiceIsANoOp_Postgres(t *testing.T) {
	t.Parallel()
	testMigrateTwice(t, DialectPostgres)
}

func testMigrateTwice(t *testing.T, dialect Dialect) {
	open := sameDatabase(t, dialect)
	ctx := testContext(t)
	db := open(t)
	for i := range 2 {
		if err := db.Migrate(ctx); err != nil {
			t.Fatalf("migrate #%d: %v", i+1, err)
		}
	}
	ms, err := migrations.For(string(db.Dialect()))
	if err != nil {
		t.Fatal(err)
	}
	applied, err := db.Bun().NewSelect().Table("bun_migrations").Count(ctx)
	if err != nil {
		t.Fatalf("count applied: %v", err)
	}
	if want := len(ms.Sorted()); applied != int64(want) {
		t.Errorf("%d migrations recorded, want %d", applied, want)
	}
	// A second process finds nothing to do either.
	if err := open(t).Migrate(ctx); err != nil {
		t.Fatalf("migrate from another handle: %v", err)
	}
}

func TestMigrate_concurrentProcessesTakeTurns_SQLite(t *testing.T) {
	t.Parallel()
	testMigrateConcurrently(t, DialectSQLite)
}

func TestMigrate_concurrentProcessesTakeTurns_Postgres(t *testing.T) {
	t.Parallel()
	testMigrateConcurrently(t, DialectPostgres)
}

func testMigrateConcurrently(t *testing.T, dialect Dialect) {
	open := sameDatabase(t, dialect)
	ctx := testContext(t)
	handles := []*DB{open(t), open(t), open(t)}
	errs := make([]error, len(handles))
	var wg sync.WaitGroup
	for i, db := range handles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = db.Migrate(ctx)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("migrate #%d: %v", i, err)
		}
	}
	store := NewMemoryStore(handles[0])
	if _, err := store.Get(ctx, memory.Scope{Tenant: "t", User: "u"}, memory.MustParseKey("k")); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("after concurrent migrations: get err = %v, want ErrNotFound", err)
	}
}

func TestOpen_SQLiteDataSurvivesReopen(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	dir := t.TempDir()
	scope := memory.Scope{Tenant: "t", User: "u"}

	db, err := Open(ctx, Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	saved, err := NewMemoryStore(db).Update(ctx, scope, memory.MustParseKey("survivor"), func(cur *memory.Memory) (memory.Change, error) {
		d, err := memory.ParseDraft(memory.DraftInput{Type: "fact", Content: "still here after a restart"}, memory.Source{Channel: memory.ChannelTool})
		if err != nil {
			return memory.Change{}, err
		}
		m, err := memory.New("01JZSURVIVOR00000000000000", scope, memory.MustParseKey("survivor"), d, memory.Policy{}, time.Now())
		if err != nil {
			return memory.Change{}, err
		}
		return memory.Change{Memory: m, Event: memory.NewEvent("01JZSURVIVOREVENT000000000", memory.OpAdd, nil, m)}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}

	reopened := openUnmigrated(t, Options{DataDir: dir})
	if err := reopened.Migrate(ctx); err != nil {
		t.Fatalf("migrate after reopen: %v", err)
	}
	store := NewMemoryStore(reopened)
	got, err := store.Get(ctx, scope, memory.MustParseKey("survivor"))
	if err != nil {
		t.Fatalf("get after reopen: %v", err)
	}
	if got.State() != saved.State() {
		t.Errorf("after reopen:\n got  %+v\n want %+v", got.State(), saved.State())
	}
	if events, err := store.History(ctx, scope, memory.MustParseKey("survivor")); err != nil || len(events) != 1 {
		t.Errorf("history after reopen: %d events, %v", len(events), err)
	}
}

func TestOpen_refusesAnUnknownURLWithoutRepeatingIt(t *testing.T) {
	t.Parallel()
	for _, url := range []string{"mysql://root:s3cret@localhost/db", "postgres://user:s3cret@[::1", "s3cret"} {
		_, err := Open(testContext(t), Options{DatabaseURL: url})
		if err == nil {
			t.Errorf("%q: opened", url)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%q: the error repeats the password: %v", url, err)
		}
	}
	if _, err := Open(testContext(t), Options{}); err == nil {
		t.Error("opened SQLite without a data directory")
	}
}

func TestOpen_unreachablePostgresIsUnavailable(t *testing.T) {
	t.Parallel()
	// Port 1 on loopback: nothing listens, the connection is refused at once.
	_, err := Open(testContext(t), Options{DatabaseURL: "postgres://engram@127.0.0.1:1/engram?sslmode=disable"})
	if !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	expectNoDriverError(t, err)
}

func TestErrors_closedDatabaseIsUnavailable(t *testing.T) {
	t.Parallel()
	db := openSQLiteForTest(t)
	_ = db.Close()
	_, err := NewMemoryStore(db).Get(context.Background(), memory.Scope{Tenant: "t", User: "u"}, memory.MustParseKey("k"))
	if !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	expectNoDriverError(t, err)
}

func expectNoDriverError(t *testing.T, err error) {
	t.Helper()
	var pgErr pgdriver.Error
	var liteErr *sqlite.Error
	if errors.As(err, &pgErr) || errors.As(err, &liteErr) {
		t.Errorf("a driver error leaks: %T in %v", err, err)
	}
}

func TestWriteTx_SQLite(t *testing.T)   { t.Parallel(); testWriteTx(t, DialectSQLite) }
func TestWriteTx_Postgres(t *testing.T) { t.Parallel(); testWriteTx(t, DialectPostgres) }

func testWriteTx(t *testing.T, dialect Dialect) {
	db := openerFor(dialect)(t)
	ctx := testContext(t)
	taken := apiKeyRow{ID: "k0", TenantID: "t", KeyHash: "taken", CreatedAt: time.Now()}
	if _, err := db.Bun().NewInsert().Model(&taken).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	insert := func(hash string) func(context.Context, bun.Tx) error {
		return func(ctx context.Context, tx bun.Tx) error {
			row := apiKeyRow{ID: "k-" + hash, TenantID: "t", KeyHash: hash, CreatedAt: time.Now()}
			_, err := tx.NewInsert().Model(&row).Exec(ctx)
			return err // raw on purpose: WriteTx must still classify it
		}
	}

	t.Run("the callback's own error comes back as it is", func(t *testing.T) {
		errBoom := errors.New("boom")
		err := db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			if err := insert("boom")(ctx, tx); err != nil {
				return err
			}
			return errBoom
		})
		if err != errBoom {
			t.Fatalf("err = %v, want the very same error", err)
		}
		n, _ := db.Bun().NewSelect().Model((*apiKeyRow)(nil)).Where("key_hash = 'boom'").Count(ctx)
		if n != 0 {
			t.Error("the rolled-back insert is visible")
		}
	})

	t.Run("a lost race is retried on PostgreSQL only", func(t *testing.T) {
		calls := 0
		err := db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			calls++
			hash := "taken"
			if calls == 3 {
				hash = "free"
			}
			return insert(hash)(ctx, tx)
		})
		switch db.Dialect() {
		case DialectPostgres:
			if err != nil || calls != 3 {
				t.Fatalf("err = %v after %d calls; want success on the third", err, calls)
			}
		case DialectSQLite:
			if !errors.Is(err, ports.ErrConflict) || calls != 1 {
				t.Fatalf("err = %v after %d calls; want ErrConflict after one", err, calls)
			}
			expectNoDriverError(t, err)
		}
	})

	t.Run("retries give up with ErrConflict", func(t *testing.T) {
		calls := 0
		err := db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			calls++
			return insert("taken")(ctx, tx)
		})
		if !errors.Is(err, ports.ErrConflict) {
			t.Fatalf("err = %v, want ErrConflict", err)
		}
		expectNoDriverError(t, err)
		want := 1
		if db.Dialect() == DialectPostgres {
			want = DefaultTxAttempts
		}
		if calls != want {
			t.Errorf("%d calls, want %d", calls, want)
		}
	})

	t.Run("waiting for a turn honours the context", func(t *testing.T) {
		release := make(chan struct{})
		started := make(chan struct{})
		go func() {
			_ = db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
				if _, err := tx.NewInsert().Model(&apiKeyRow{ID: "hold", TenantID: "t", KeyHash: "hold", CreatedAt: time.Now()}).Exec(ctx); err != nil {
					return err
				}
				close(started)
				<-release
				return nil
			})
		}()
		<-started
		short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		// The same row: PostgreSQL waits on the unique index, SQLite for its turn.
		err := db.WriteTx(short, func(ctx context.Context, tx bun.Tx) error {
			_, err := tx.NewInsert().Model(&apiKeyRow{ID: "hold", TenantID: "t", KeyHash: "hold", CreatedAt: time.Now()}).Exec(ctx)
			return err
		})
		close(release)
		if !errors.Is(err, ports.ErrUnavailable) && !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want a timeout", err)
		}
	})
}

func TestOpen_SQLiteConnectionsUseWALAndWait(t *testing.T) {
	t.Parallel()
	db := openSQLiteForTest(t)
	ctx := testContext(t)
	// Ask several connections at once so that more than one of the pool answers.
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := db.Bun().Conn(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close()
			for pragma, want := range map[string]string{
				"journal_mode": "wal",
				"synchronous":  "1", // NORMAL
				"foreign_keys": "1",
				"busy_timeout": "5000",
			} {
				var got string
				if err := conn.QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got); err != nil {
					t.Errorf("pragma %s: %v", pragma, err)
				} else if got != want {
					t.Errorf("pragma %s = %s, want %s", pragma, got, want)
				}
			}
		}()
	}
	wg.Wait()
}

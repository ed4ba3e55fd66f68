package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/pgdriver"
	"github.com/uptrace/bun/migrate"
	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"engram/migrations"
	"engram/ports"
)

// Dialect is the kind of database behind a DB.
type Dialect string

const (
	DialectSQLite   Dialect = migrations.SQLite
	DialectPostgres Dialect = migrations.Postgres
)

// SQLiteFile is the name of the embedded database inside the data directory.
const SQLiteFile = "engram.db"

// Defaults of Options.
const (
	DefaultSQLiteMaxOpenConns   = 4
	DefaultPostgresMaxOpenConns = 10
	DefaultBusyTimeout          = 5 * time.Second
	DefaultTxAttempts           = 5
	DefaultMigrateLockWait      = 30 * time.Second
)

// Options says which database to open.
type Options struct {
	// DatabaseURL selects PostgreSQL ("postgres://…" or "postgresql://…"); empty
	// selects the SQLite file DataDir/engram.db.
	DatabaseURL string
	// DataDir holds the SQLite file; it is created when missing.
	DataDir string
	// MaxOpenConns bounds the pool; 0 picks a default per dialect.
	MaxOpenConns int
	// BusyTimeout is how long SQLite waits for another process's write lock.
	BusyTimeout time.Duration
	// TxAttempts is how many times WriteTx runs a PostgreSQL transaction that
	// lost a race (unique violation, serialization failure, deadlock) before it
	// reports ports.ErrConflict.
	TxAttempts int
	// MigrateLockWait is how long Migrate waits for another process's migration.
	MigrateLockWait time.Duration
}

// DB is an open database. It is safe for concurrent use.
type DB struct {
	bun         *bun.DB
	dialect     Dialect
	writer      chan struct{}  // SQLite: one write transaction at a time; nil on PostgreSQL
	writes      chan *writeReq // SQLite: WriteTx requests for the group-commit writer
	stopWriter  chan struct{}  // closed by Close to end the writer goroutine
	writerDone  chan struct{}
	closeOnce   sync.Once
	txAttempts  int
	migrateWait time.Duration
	// lexicalWindow is the lexical tombstone window (lexical.go); 0: the default.
	lexicalWindow int64
	// guardStmts are the prepared statements of the erasure guard (erasure.go).
	guardStmts statements
}

// Open connects to the database the options name and checks that it answers.
// It does not migrate; call Migrate.
func Open(ctx context.Context, opts Options) (*DB, error) {
	if opts.TxAttempts <= 0 {
		opts.TxAttempts = DefaultTxAttempts
	}
	if opts.MigrateLockWait <= 0 {
		opts.MigrateLockWait = DefaultMigrateLockWait
	}
	var (
		db  *DB
		err error
	)
	if strings.TrimSpace(opts.DatabaseURL) == "" {
		db, err = openSQLite(opts)
	} else {
		db, err = openPostgres(opts)
	}
	if err != nil {
		return nil, err
	}
	db.txAttempts = opts.TxAttempts
	db.migrateWait = opts.MigrateLockWait
	if err := db.Ping(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	return db, nil
}

func openSQLite(opts Options) (*DB, error) {
	dir := opts.DataDir
	if dir == "" {
		return nil, errors.New("sqlstore: open: no data directory for the SQLite file")
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("sqlstore: open: create data directory: %v: %w", err, ports.ErrUnavailable)
	}
	path := filepath.Join(dir, SQLiteFile)
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("sqlstore: open: the data directory %q must not contain '?' or '#'", dir)
	}
	busy := opts.BusyTimeout
	if busy <= 0 {
		busy = DefaultBusyTimeout
	}
	// _txlock=immediate takes the write lock at BEGIN, where busy_timeout applies,
	// instead of failing at once when a read transaction later wants to write.
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(1)")
	// A deleted row's bytes are zeroed, not left in a free page or cell (an
	// erasure must not survive in the file; see Scrubber).
	q.Add("_pragma", "secure_delete(1)")
	q.Set("_txlock", "immediate")
	sqldb, err := sql.Open("sqlite", path+"?"+q.Encode())
	if err != nil {
		return nil, wrapErr("open sqlite", err)
	}
	conns := opts.MaxOpenConns
	if conns <= 0 {
		conns = DefaultSQLiteMaxOpenConns
	}
	sqldb.SetMaxOpenConns(conns)
	sqldb.SetMaxIdleConns(conns)
	sqldb.SetConnMaxIdleTime(0)
	db := &DB{
		bun:        bun.NewDB(sqldb, sqlitedialect.New()),
		dialect:    DialectSQLite,
		writer:     make(chan struct{}, 1),
		writes:     make(chan *writeReq),
		stopWriter: make(chan struct{}),
		writerDone: make(chan struct{}),
	}
	go db.runWriter()
	return db, nil
}

func openPostgres(opts Options) (*DB, error) {
	u, err := url.Parse(opts.DatabaseURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		// The URL may hold a password: do not repeat it.
		return nil, errors.New("sqlstore: open: the database URL must look like postgres://user@host:5432/db")
	}
	connector, err := pgConnector(opts.DatabaseURL)
	if err != nil {
		return nil, err
	}
	sqldb := sql.OpenDB(connector)
	conns := opts.MaxOpenConns
	if conns <= 0 {
		conns = DefaultPostgresMaxOpenConns
	}
	sqldb.SetMaxOpenConns(conns)
	sqldb.SetMaxIdleConns(conns)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	return &DB{
		bun:     bun.NewDB(sqldb, pgdialect.New()),
		dialect: DialectPostgres,
	}, nil
}

// pgConnector turns pgdriver's panic on a malformed DSN into an error.
func pgConnector(dsn string) (c *pgdriver.Connector, err error) {
	defer func() {
		if recover() != nil {
			c, err = nil, errors.New("sqlstore: open: the database URL is malformed")
		}
	}()
	return pgdriver.NewConnector(pgdriver.WithApplicationName("engram"), pgdriver.WithDSN(dsn)), nil
}

// Bun is the bun handle for the other files of this package (and for tests).
// Writes belong in WriteTx.
func (db *DB) Bun() *bun.DB { return db.bun }

// Dialect says which database this is.
func (db *DB) Dialect() Dialect { return db.dialect }

// Ping checks that the database answers (readiness probes).
func (db *DB) Ping(ctx context.Context) error {
	return wrapErr("ping", db.bun.PingContext(ctx))
}

// Close closes the pool. Pending writes finish first.
func (db *DB) Close() error {
	if db.stopWriter != nil {
		db.closeOnce.Do(func() { close(db.stopWriter) })
		<-db.writerDone
	}
	db.guardStmts.close()
	if err := db.bun.Close(); err != nil {
		return wrapErr("close", err)
	}
	return nil
}

// Migrate applies the pending migrations of this dialect under bun's migration
// lock, waiting for another process that holds it. Running it again is a no-op.
func (db *DB) Migrate(ctx context.Context) error {
	ms, err := migrations.For(string(db.dialect))
	if err != nil {
		return err
	}
	if db.writer != nil {
		if err := db.lockWriter(ctx); err != nil {
			return wrapErr("migrate", err)
		}
		defer db.unlockWriter()
	}
	m := migrate.NewMigrator(db.bun, ms, migrate.WithMarkAppliedOnSuccess(true))
	if err := db.initMigrator(ctx, m); err != nil {
		return err
	}
	if err := db.lockMigrations(ctx, m); err != nil {
		return err
	}
	defer func() {
		unlockCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = m.Unlock(unlockCtx)
	}()
	if _, err := m.Migrate(ctx); err != nil {
		return wrapErr("migrate", err)
	}
	return nil
}

// initMigrator creates bun's bookkeeping tables. Two processes doing it at once on
// PostgreSQL collide in the catalog even with IF NOT EXISTS; the loser tries again.
func (db *DB) initMigrator(ctx context.Context, m *migrate.Migrator) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = m.Init(ctx); err == nil {
			return nil
		}
		if !isCatalogRace(err) {
			break
		}
		if sleepErr := sleepJitter(ctx, attempt); sleepErr != nil {
			return wrapErr("init migrations", sleepErr)
		}
	}
	return wrapErr("init migrations", err)
}

// lockMigrations takes bun's lock row, polling while another process holds it.
func (db *DB) lockMigrations(ctx context.Context, m *migrate.Migrator) error {
	deadline := time.Now().Add(db.migrateWait)
	for {
		err := m.Lock(ctx)
		if err == nil {
			return nil
		}
		if c := classify(err); c != classUnique && c != classRace && c != classUnavailable {
			return wrapErr("lock migrations", err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sqlstore: lock migrations: another process has held the lock for %s "+
				"(if none is running, delete the row in bun_migration_locks): %w", db.migrateWait, ports.ErrUnavailable)
		}
		select {
		case <-ctx.Done():
			return wrapErr("lock migrations", ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

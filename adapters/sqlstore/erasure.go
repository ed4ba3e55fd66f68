package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"

	"github.com/uptrace/bun"

	"engram/domain/memory"
	"engram/ports"
)

// ErasureStore starts erasures: the erasure job in jobs is the user's tombstone
// while it is open (ports.ErasureStore).
//
// Why no write of the user can slip past it: on SQLite every write transaction of
// the process runs alone, so a write either commits before the job is stored (and
// the purge, which starts after, deletes it) or sees the job and is refused. On
// PostgreSQL every write of a user holds a shared advisory lock of the user for its
// transaction (guardWrite) and BeginErasure takes the same lock exclusively: the
// job is stored only once the writes in flight have committed, and a write that
// takes the lock afterwards reads the job in a statement that starts after the
// lock is granted.
type ErasureStore struct {
	db *DB
}

var _ ports.ErasureStore = (*ErasureStore)(nil)

// NewErasureStore serves ports.ErasureStore from db.
func NewErasureStore(db *DB) *ErasureStore { return &ErasureStore{db: db} }

// erasureLockClass is the first key of the users' advisory locks on PostgreSQL
// ("eras"); the second is a hash of the scope.
const erasureLockClass = 0x65726173

// openErasure is the WHERE clause of a scope's open erasure jobs (alias j).
const openErasure = `j.kind = 'erase_user' AND j.status IN ('QUEUED', 'RUNNING')`

// userLockKey hashes a scope into the second key of its advisory lock. Two users
// with one hash only wait for each other's erasure; nothing else.
func userLockKey(scope memory.Scope) int32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(scope.Tenant))
	_, _ = h.Write([]byte{0})
	_, _ = h.Write([]byte(scope.User))
	return int32(h.Sum32())
}

// lockUser takes the scope's advisory lock for the transaction on PostgreSQL:
// shared for writes, exclusive to begin an erasure. No-op on SQLite.
func (db *DB) lockUser(ctx context.Context, tx bun.Tx, scope memory.Scope, exclusive bool) error {
	if db.dialect != DialectPostgres {
		return nil
	}
	fn := "pg_advisory_xact_lock_shared"
	if exclusive {
		fn = "pg_advisory_xact_lock"
	}
	_, err := tx.ExecContext(ctx, "SELECT "+fn+"(?, ?)", erasureLockClass, userLockKey(scope))
	return wrapErr("lock user", err)
}

// erasing returns the id of the scope's open erasure job, "" when none.
func (db *DB) erasing(ctx context.Context, q bun.IDB, scope memory.Scope) (string, error) {
	var ids []string
	err := q.NewSelect().TableExpr("jobs AS j").Column("j.id").
		Where("j.tenant_id = ?", scope.Tenant).
		Where("j.user_id = ?", scope.User).
		Where(openErasure).
		OrderExpr("j.id").Limit(1).
		Scan(ctx, &ids)
	if err != nil {
		return "", wrapErr("check erasure", err)
	}
	if len(ids) == 0 {
		return "", nil
	}
	return ids[0], nil
}

// guardWrite is the first statement of every write transaction of a user's data:
// it takes the user's shared lock and refuses the write while an erasure is open.
//
// On SQLite the check is a statement prepared once per connection: bun sends every
// other statement as text, which the pure-Go SQLite parses anew, and on the save
// path that cost more than the lookup itself (docs/BENCHMARKS.md "Erasure"). On
// PostgreSQL, where parsing is cheap, the statements stay text: preparing one
// needs a connection of the pool, which writers holding theirs while they wait
// for it could starve.
func (db *DB) guardWrite(ctx context.Context, tx bun.Tx, scope memory.Scope) error {
	if db.dialect == DialectPostgres {
		if err := db.lockUser(ctx, tx, scope, false); err != nil {
			return err
		}
		id, err := db.erasing(ctx, tx, scope)
		if err != nil {
			return err
		}
		if id != "" {
			return &ports.ErasingError{JobID: id}
		}
		return nil
	}
	// SQLite runs one write transaction at a time, so the preparation below (on
	// another connection of the pool, used only by readers) cannot wait on a writer.
	check, err := db.guardStmts.get(ctx, db, `SELECT id FROM jobs WHERE tenant_id = ? AND user_id = ?
		AND kind = 'erase_user' AND status IN ('QUEUED', 'RUNNING') ORDER BY id LIMIT 1`)
	if err != nil {
		return err
	}
	var id string
	switch err := tx.Tx.StmtContext(ctx, check).QueryRowContext(ctx, scope.Tenant, scope.User).Scan(&id); {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return wrapErr("check erasure", err)
	}
	return &ports.ErasingError{JobID: id}
}

// statements are prepared statements of the database, by query, prepared on first
// use (database/sql prepares them again on each connection that runs them).
type statements struct {
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

func (s *statements) get(ctx context.Context, db *DB, query string) (*sql.Stmt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.stmts[query]; st != nil {
		return st, nil
	}
	st, err := db.bun.DB.PrepareContext(ctx, db.bindSQL(query))
	if err != nil {
		return nil, wrapErr("prepare", err)
	}
	if s.stmts == nil {
		s.stmts = map[string]*sql.Stmt{}
	}
	s.stmts[query] = st
	return st, nil
}

func (s *statements) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.stmts {
		_ = st.Close()
	}
	s.stmts = nil
}

// unlessErasing is the condition every read of a scope's data adds to its own
// statement: no erasure of the scope is open. The tombstone is thus read in the
// same statement, from the same snapshot, as the data (an uncorrelated subquery:
// one lookup in jobs_scope_idx per statement), and a user being erased reads as a
// user that never existed.
const unlessErasing = `NOT EXISTS (SELECT 1 FROM jobs AS ej WHERE ej.tenant_id = ? AND ej.user_id = ?
	AND ej.kind = 'erase_user' AND ej.status IN ('QUEUED', 'RUNNING'))`

// visible adds unlessErasing to a read of scope.
func visible(q *bun.SelectQuery, scope memory.Scope) *bun.SelectQuery {
	return q.Where(unlessErasing, scope.Tenant, scope.User)
}

// Erasing returns the scope's open erasure job.
func (s *ErasureStore) Erasing(ctx context.Context, scope memory.Scope) (string, error) {
	return s.db.erasing(ctx, s.db.bun, scope)
}

// BeginErasure stores the job unless an erasure of the scope is open.
func (s *ErasureStore) BeginErasure(ctx context.Context, job ports.Job) (ports.Job, bool, error) {
	if job.Kind != ports.JobEraseUser {
		return ports.Job{}, false, fmt.Errorf("sqlstore: begin erasure: job kind %q, want %q", job.Kind, ports.JobEraseUser)
	}
	var (
		out     ports.Job
		created bool
	)
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		created = false
		if err := s.db.lockUser(ctx, tx, job.Scope, true); err != nil {
			return err
		}
		var open []jobRow
		err := tx.NewSelect().Model(&open).
			Where("j.tenant_id = ?", job.Scope.Tenant).
			Where("j.user_id = ?", job.Scope.User).
			Where(openErasure).
			OrderExpr("j.id").Limit(1).
			Scan(ctx)
		if err != nil && classify(err) != classNotFound {
			return wrapErr("find open erasure", err)
		}
		if len(open) > 0 {
			out, err = open[0].toJob()
			return err
		}
		job.Status = ports.JobQueued
		row, err := toJobRow(job)
		if err != nil {
			return err
		}
		if _, err := tx.NewInsert().Model(&row).Exec(ctx); err != nil {
			return wrapErr("insert erasure job", err)
		}
		created = true
		out, err = row.toJob()
		return err
	})
	return out, created, err
}

// ErasingUsers returns the users of the list with an open erasure.
func (s *ErasureStore) ErasingUsers(ctx context.Context, tenant string, users []string) (map[string]string, error) {
	out := map[string]string{}
	for start := 0; start < len(users); start += lexicalBatch {
		var rows []struct {
			ID     string `bun:"id"`
			UserID string `bun:"user_id"`
		}
		err := s.db.bun.NewSelect().TableExpr("jobs AS j").Column("j.id", "j.user_id").
			Where("j.tenant_id = ?", tenant).
			Where("j.user_id IN (?)", bun.List(users[start:min(start+lexicalBatch, len(users))])).
			Where(openErasure).
			Scan(ctx, &rows)
		if err != nil {
			return nil, wrapErr("users being erased", err)
		}
		for _, r := range rows {
			out[r.UserID] = r.ID
		}
	}
	return out, nil
}

// notErasing is a WHERE condition that leaves out the rows (alias a, with
// tenant_id and user_id) of users being erased: workers claim nothing of them, so
// the purge, which waits for the claims in flight, is never starved by new ones.
func notErasing(alias string) string {
	return `NOT EXISTS (SELECT 1 FROM jobs AS ej WHERE ej.tenant_id = ` + alias + `.tenant_id AND ej.user_id = ` +
		alias + `.user_id AND ej.kind = 'erase_user' AND ej.status IN ('QUEUED', 'RUNNING'))`
}

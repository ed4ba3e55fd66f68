package sqlstore

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/uptrace/bun"
)

// WriteTx runs fn in one write transaction and commits when fn returns nil.
//
// On SQLite, write transactions of this process run one at a time (SQLite has a
// single writer; waiting here is cheaper and fairer than busy retries), and the
// ones that queue up meanwhile are committed together (group commit, see
// groupWrite). On
// PostgreSQL, a transaction that lost a race — unique violation, serialization
// failure, deadlock — is rolled back and run again, fn included, with a short
// jittered pause, up to Options.TxAttempts times; then the error is
// ports.ErrConflict. fn must therefore be safe to run more than once and must
// read what it decides on inside tx (SELECT … FOR UPDATE on PostgreSQL).
//
// Errors: an error fn returns that did not come from the database is returned as
// it is (errors.Is keeps working for the caller's own sentinels). Database errors,
// raw or already passed through wrapErr, come back as ports errors. WriteTx is
// not reentrant: fn must not call WriteTx.
func (db *DB) WriteTx(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	if db.writes != nil {
		return db.finishTx(db.groupWrite(ctx, fn))
	}
	for attempt := 1; ; attempt++ {
		err := db.runTx(ctx, fn)
		dbErr := asDBError("transaction", err)
		if err == nil || dbErr == nil || !dbErr.retryable() {
			return db.finishTx(err)
		}
		if attempt >= db.txAttempts {
			return errConflictAfter(attempt, dbErr)
		}
		if err := sleepJitter(ctx, attempt); err != nil {
			return wrapErr("transaction", err)
		}
	}
}

// finishTx makes database errors ports errors and leaves fn's own errors alone.
func (db *DB) finishTx(err error) error {
	if err == nil {
		return nil
	}
	if dbErr := asDBError("transaction", err); dbErr != nil {
		var wrapped *dbError
		if errors.As(err, &wrapped) {
			return err // keep the caller's context around it
		}
		return dbErr
	}
	return err
}

// runTx is one attempt: begin, fn, commit; rollback on error or panic.
func (db *DB) runTx(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) (err error) {
	tx, err := db.bun.BeginTx(ctx, nil)
	if err != nil {
		return wrapErr("begin transaction", err)
	}
	committed := false
	defer func() {
		if !committed {
			_ = tx.Rollback()
		}
	}()
	if err := fn(ctx, tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return wrapErr("commit", err)
	}
	committed = true
	return nil
}

// lockWriter waits for SQLite's in-process write turn, or for ctx.
func (db *DB) lockWriter(ctx context.Context) error {
	select {
	case db.writer <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (db *DB) unlockWriter() { <-db.writer }

// sleepJitter waits a random time that grows with attempt (about 2, 4, 8 … ms,
// at most 100 ms), or until ctx ends.
func sleepJitter(ctx context.Context, attempt int) error {
	ceiling := time.Millisecond << min(attempt, 6)
	ceiling = min(ceiling, 100*time.Millisecond)
	d := ceiling/2 + rand.N(ceiling/2+1)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

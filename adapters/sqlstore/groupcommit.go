package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/uptrace/bun"

	"engram/ports"
)

// maxGroup bounds how many write transactions share one SQLite commit.
const maxGroup = 64

// Request states: a caller that gives up while queued must never see its fn run
// later, and a running fn must be waited for.
const (
	reqPending int32 = iota
	reqRunning
	reqAbandoned
)

// writeReq is one WriteTx call waiting for the SQLite writer.
type writeReq struct {
	ctx   context.Context
	fn    func(ctx context.Context, tx bun.Tx) error
	state atomic.Int32
	done  chan error
}

// panicError carries a panic of fn back to the goroutine that called WriteTx.
type panicError struct{ value any }

func (p panicError) Error() string { return fmt.Sprintf("panic in write transaction: %v", p.value) }

var errWriterClosed = fmt.Errorf("sqlstore: database closed: %w", ports.ErrUnavailable)

// groupWrite hands fn to the writer goroutine and waits for its result.
//
// Why: SQLite commits one transaction at a time, and with modernc's pure-Go build
// each commit (WAL frame writes, locks) costs about as much as the work inside it.
// Writers that queue while a commit runs are therefore run together in one
// transaction, each inside its own SAVEPOINT so that one fn's failure rolls back
// only its own writes. Every caller still sees its fn applied atomically or not at
// all; a failed COMMIT fails every member of the group.
func (db *DB) groupWrite(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	req := &writeReq{ctx: ctx, fn: fn, done: make(chan error, 1)}
	select {
	case db.writes <- req:
	case <-ctx.Done():
		return wrapErr("begin transaction", ctx.Err())
	case <-db.stopWriter:
		return errWriterClosed
	}
	var err error
	select {
	case err = <-req.done:
	case <-ctx.Done():
		if req.state.CompareAndSwap(reqPending, reqAbandoned) {
			return wrapErr("begin transaction", ctx.Err())
		}
		err = <-req.done // already running: its outcome is the caller's
	}
	var p panicError
	if errors.As(err, &p) {
		panic(p.value)
	}
	return err
}

// runWriter is the one goroutine that writes to SQLite: it takes a request, then
// every request already queued, and commits them together.
func (db *DB) runWriter() {
	defer close(db.writerDone)
	for {
		var first *writeReq
		select {
		case first = <-db.writes:
		case <-db.stopWriter:
			return
		}
		group := []*writeReq{first}
	collect:
		for len(group) < maxGroup {
			select {
			case r := <-db.writes:
				group = append(group, r)
			default:
				break collect
			}
		}
		db.writer <- struct{}{} // shared with Migrate
		db.commitGroup(group)
		<-db.writer
	}
}

// commitGroup runs a group in one transaction and tells every member its outcome.
func (db *DB) commitGroup(group []*writeReq) {
	live := group[:0]
	for _, r := range group {
		if !r.state.CompareAndSwap(reqPending, reqRunning) {
			continue // its caller gave up while it was queued
		}
		if err := r.ctx.Err(); err != nil {
			r.done <- wrapErr("begin transaction", err)
			continue
		}
		live = append(live, r)
	}
	switch len(live) {
	case 0:
		return
	case 1:
		// Alone: a plain transaction, no savepoint statements to pay for.
		r := live[0]
		r.done <- db.runTx(detached(r.ctx), func(ctx context.Context, tx bun.Tx) error { return call(r.fn, ctx, tx) })
		return
	}

	// The transaction outlives any one caller, so it runs on a context no caller can
	// cancel: interrupting a statement would roll back the whole group.
	bg := context.Background()
	tx, err := db.bun.BeginTx(bg, nil)
	if err != nil {
		failAll(live, wrapErr("begin transaction", err))
		return
	}
	results := make([]error, len(live))
	for i, r := range live {
		if _, err := tx.ExecContext(bg, "SAVEPOINT w"); err != nil {
			_ = tx.Rollback()
			failAll(live, wrapErr("savepoint", err))
			return
		}
		results[i] = call(r.fn, detached(r.ctx), tx)
		undo := "RELEASE w"
		if results[i] != nil {
			undo = "ROLLBACK TO w; RELEASE w"
		}
		if _, err := tx.ExecContext(bg, undo); err != nil {
			_ = tx.Rollback()
			failAll(live, wrapErr("savepoint", err))
			return
		}
	}
	if err := tx.Commit(); err != nil {
		failAll(live, wrapErr("commit", err))
		return
	}
	for i, r := range live {
		r.done <- results[i]
	}
}

// call runs fn and turns a panic into an error for the caller to re-raise.
func call(fn func(context.Context, bun.Tx) error, ctx context.Context, tx bun.Tx) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicError{value: v}
		}
	}()
	return fn(ctx, tx)
}

// detached keeps the caller's values but not its cancellation (see commitGroup).
func detached(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }

func failAll(group []*writeReq, err error) {
	for _, r := range group {
		r.done <- err
	}
}

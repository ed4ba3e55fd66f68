package sqlstore

import (
	"context"
	"errors"
	"net"
	"strings"
	"syscall"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Diagnosis of database errors for operators: start-up messages and readiness
// name the root cause ("connection refused", "database or disk is full") without
// the driver's types leaving this package.

// Reason is the root cause of a database error in a few words: the system call's
// error, PostgreSQL's message or SQLite's, never the chain of operations above it.
func Reason(err error) string {
	if err == nil {
		return ""
	}
	var db *dbError
	if errors.As(err, &db) {
		err = db.cause
	}
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		return pgErr.Field('M')
	}
	var liteErr *sqlite.Error
	if errors.As(err, &liteErr) {
		return sqliteMessage(liteErr)
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return "no such host " + dnsErr.Name
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	var netErr net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout() {
		return "timed out"
	}
	for next := errors.Unwrap(err); next != nil; next = errors.Unwrap(err) {
		err = next
	}
	return err.Error()
}

// sqliteMessage is SQLite's text without the driver's "(code)" suffix.
func sqliteMessage(e *sqlite.Error) string {
	msg := e.Error()
	if i := strings.LastIndex(msg, " ("); i > 0 && strings.HasSuffix(msg, ")") {
		msg = msg[:i]
	}
	return msg
}

// IsUnreachable reports whether the database did not answer: refused, reset or
// timed-out connections, an unknown host.
func IsUnreachable(err error) bool {
	var db *dbError
	if errors.As(err, &db) {
		err = db.cause
	}
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		return false // it answered
	}
	var dnsErr *net.DNSError
	return errors.As(err, &dnsErr) || classify(err) == classUnavailable
}

// IsAuthFailure reports whether PostgreSQL refused the login (SQLSTATE class 28).
func IsAuthFailure(err error) bool {
	var pgErr pgdriver.Error
	return errors.As(err, &pgErr) && strings.HasPrefix(pgErr.Field('C'), "28")
}

// IsStorageFull reports whether a write failed for want of space: SQLITE_FULL,
// ENOSPC from the file system, or PostgreSQL's disk_full (53100). The database is
// up, but nothing new can be stored until space is freed.
func IsStorageFull(err error) bool {
	if err == nil {
		return false
	}
	var db *dbError
	if errors.As(err, &db) {
		err = db.cause
	}
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		return pgErr.Field('C') == "53100"
	}
	var liteErr *sqlite.Error
	if errors.As(err, &liteErr) && liteErr.Code()&0xff == sqlite3.SQLITE_FULL {
		return true
	}
	return errors.Is(err, syscall.ENOSPC)
}

// ObserveWrites calls fn after every write statement and every commit: with nil
// when it succeeded, with the error when it failed for want of space
// (IsStorageFull). Other failures (conflicts, a lost connection) are not reported
// here: their callers see them, and a ping says whether the database answers.
// Readiness uses it to say "degraded" while the disk is full and "up" again with
// the first write that succeeds. Call it before the store is used.
func (db *DB) ObserveWrites(fn func(err error)) {
	// A copy with the hook: every store reads db.bun when it queries, so all of
	// them see it from here on.
	db.bun = db.bun.WithQueryHook(writeObserver{fn: fn})
}

type writeObserver struct{ fn func(error) }

func (writeObserver) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (o writeObserver) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	if !isWrite(e.Query) {
		return
	}
	switch {
	case e.Err == nil:
		o.fn(nil)
	case IsStorageFull(e.Err):
		o.fn(wrapErr("write", e.Err))
	}
}

// isWrite reports whether a statement writes, by its first word (bun says
// "SELECT" for every raw query, so its Operation cannot tell).
func isWrite(query string) bool {
	word, _, _ := strings.Cut(strings.TrimSpace(query), " ")
	switch strings.ToUpper(word) {
	case "INSERT", "UPDATE", "DELETE", "COMMIT":
		return true
	}
	return false
}

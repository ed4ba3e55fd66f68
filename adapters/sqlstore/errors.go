package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/uptrace/bun/driver/pgdriver"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"engram/ports"
)

// errClass is what a database error means to engram.
type errClass int

const (
	classNone        errClass = iota // not a database error: someone else's, pass it on
	classNotFound                    // no row
	classUnique                      // a unique key is taken
	classRace                        // serialization failure, deadlock, lock timeout
	classUnavailable                 // connection lost or refused, timeout, database busy
	classOther                       // a database error with no meaning for the ports
)

// classify reads the driver's error without letting its type escape.
func classify(err error) errClass {
	if err == nil {
		return classNone
	}
	if errors.Is(err, sql.ErrNoRows) {
		return classNotFound
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return classUnavailable
	}
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		return classifyPostgres(pgErr.Field('C'))
	}
	var liteErr *sqlite.Error
	if errors.As(err, &liteErr) {
		return classifySQLite(liteErr.Code())
	}
	var netErr net.Error
	switch {
	case errors.As(err, &netErr),
		errors.Is(err, driver.ErrBadConn),
		errors.Is(err, sql.ErrConnDone),
		errors.Is(err, io.EOF),
		errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE),
		// database/sql does not export this one.
		strings.Contains(err.Error(), "sql: database is closed"):
		return classUnavailable
	case errors.Is(err, sql.ErrTxDone):
		return classOther
	}
	return classNone
}

// classifyPostgres maps a SQLSTATE (www.postgresql.org/docs/current/errcodes-appendix.html).
func classifyPostgres(code string) errClass {
	switch {
	case code == "23505": // unique_violation
		return classUnique
	case code == "40001", // serialization_failure
		code == "40P01", // deadlock_detected
		code == "55P03": // lock_not_available
		return classRace
	case strings.HasPrefix(code, "08"), // connection exception
		strings.HasPrefix(code, "53"), // insufficient resources (too many connections…)
		code == "57014",               // query_canceled, statement_timeout
		code == "57P01",               // admin_shutdown
		code == "57P02",               // crash_shutdown
		code == "57P03":               // cannot_connect_now
		return classUnavailable
	}
	return classOther
}

// isCatalogRace reports the errors PostgreSQL gives the loser of two concurrent
// CREATE … IF NOT EXISTS of the same object.
func isCatalogRace(err error) bool {
	var pgErr pgdriver.Error
	if !errors.As(err, &pgErr) {
		return false
	}
	switch pgErr.Field('C') {
	case "42P07", // duplicate_table
		"42710", // duplicate_object
		"23505": // unique_violation in pg_type or pg_class
		return true
	}
	return false
}

// classifySQLite maps a (possibly extended) SQLite result code.
func classifySQLite(code int) errClass {
	switch code {
	case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		return classUnique
	}
	switch code & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_IOERR,
		sqlite3.SQLITE_FULL, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY,
		sqlite3.SQLITE_NOMEM, sqlite3.SQLITE_INTERRUPT:
		return classUnavailable
	}
	return classOther
}

// dbError is a database failure as the ports see it: it unwraps to a ports error
// (and to the context's error when that was the cause), never to the driver's
// error, which it keeps only for retry decisions inside this package.
type dbError struct {
	op    string
	class errClass
	cause error
}

func (e *dbError) Error() string {
	var b strings.Builder
	b.WriteString("sqlstore: ")
	b.WriteString(e.op)
	if kind := e.kind(); kind != nil {
		b.WriteString(": ")
		b.WriteString(kind.Error())
	}
	if e.class != classNotFound {
		b.WriteString(": ")
		b.WriteString(e.cause.Error())
	}
	return b.String()
}

func (e *dbError) kind() error {
	switch e.class {
	case classNotFound:
		return ports.ErrNotFound
	case classUnique, classRace:
		return ports.ErrConflict
	case classUnavailable:
		return ports.ErrUnavailable
	}
	return nil
}

func (e *dbError) Unwrap() []error {
	var errs []error
	if kind := e.kind(); kind != nil {
		errs = append(errs, kind)
	}
	if ctxErr := contextError(e.cause); ctxErr != nil {
		errs = append(errs, ctxErr)
	}
	return errs
}

// retryable reports whether running the whole transaction again may succeed.
func (e *dbError) retryable() bool { return e.class == classUnique || e.class == classRace }

func contextError(err error) error {
	switch {
	case errors.Is(err, context.Canceled):
		return context.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return context.DeadlineExceeded
	}
	return nil
}

// wrapErr turns an error from the database into a ports error with context:
// "sqlstore: get memory: not found". op is short and lowercase. nil stays nil, and
// an error that is already wrapped is returned as it is.
func wrapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	var done *dbError
	if errors.As(err, &done) {
		return err
	}
	class := classify(err)
	if class == classNone {
		class = classOther
	}
	return &dbError{op: op, class: class, cause: err}
}

// asDBError finds a database error in err, wrapping a raw driver error on the way;
// it returns nil for errors that did not come from the database.
func asDBError(op string, err error) *dbError {
	var done *dbError
	if errors.As(err, &done) {
		return done
	}
	if classify(err) == classNone {
		return nil
	}
	var wrapped *dbError
	errors.As(wrapErr(op, err), &wrapped)
	return wrapped
}

// errConflictAfter says that every attempt of a transaction lost a race.
func errConflictAfter(attempts int, last error) error {
	return fmt.Errorf("sqlstore: transaction lost %d races in a row (last: %s): %w",
		attempts, last.Error(), ports.ErrConflict)
}

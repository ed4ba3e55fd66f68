package sqlstore

import (
	"testing"

	"engram/adapters/clock"
	"engram/domain/session"
	"engram/test/contract"
)

func TestSessionStore_SQLite(t *testing.T) {
	t.Parallel()
	runSessionContracts(t, openSQLiteForTest)
}

func TestSessionStore_Postgres(t *testing.T) {
	t.Parallel()
	runSessionContracts(t, openPostgresForTest)
}

// runSessionContracts runs the session contracts on stores over a fresh database
// from open for each case.
func runSessionContracts(t *testing.T, open func(testing.TB) *DB) {
	store := func(t *testing.T, limits session.Limits) *SessionStore {
		return NewSessionStore(open(t), clock.System{}, limits)
	}
	contract.RunSessionStore(t, func(t *testing.T, limits session.Limits) contract.SessionBackend { return store(t, limits) })
	contract.RunSessionExporter(t, func(t *testing.T, limits session.Limits) contract.SessionSource { return store(t, limits) })
	contract.RunSessionSweep(t, func(t *testing.T, limits session.Limits) contract.SessionSweeper { return store(t, limits) })
	contract.RunSessionActivity(t, func(t *testing.T, limits session.Limits) contract.SessionActivity { return store(t, limits) })
}

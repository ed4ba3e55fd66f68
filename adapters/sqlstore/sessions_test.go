package sqlstore

import (
	"testing"

	"engram/adapters/clock"
	"engram/domain/session"
	"engram/test/contract"
)

func TestSessionStore_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunSessionStore(t, func(t *testing.T, limits session.Limits) contract.SessionBackend {
		return NewSessionStore(openSQLiteForTest(t), clock.System{}, limits)
	})
	contract.RunSessionExporter(t, func(t *testing.T, limits session.Limits) contract.SessionSource {
		return NewSessionStore(openSQLiteForTest(t), clock.System{}, limits)
	})
	contract.RunSessionSweep(t, func(t *testing.T, limits session.Limits) contract.SessionSweeper {
		return NewSessionStore(openSQLiteForTest(t), clock.System{}, limits)
	})
	contract.RunSessionActivity(t, func(t *testing.T, limits session.Limits) contract.SessionActivity {
		return NewSessionStore(openSQLiteForTest(t), clock.System{}, limits)
	})
}

func TestSessionStore_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunSessionStore(t, func(t *testing.T, limits session.Limits) contract.SessionBackend {
		return NewSessionStore(openPostgresForTest(t), clock.System{}, limits)
	})
	contract.RunSessionExporter(t, func(t *testing.T, limits session.Limits) contract.SessionSource {
		return NewSessionStore(openPostgresForTest(t), clock.System{}, limits)
	})
	contract.RunSessionSweep(t, func(t *testing.T, limits session.Limits) contract.SessionSweeper {
		return NewSessionStore(openPostgresForTest(t), clock.System{}, limits)
	})
	contract.RunSessionActivity(t, func(t *testing.T, limits session.Limits) contract.SessionActivity {
		return NewSessionStore(openPostgresForTest(t), clock.System{}, limits)
	})
}

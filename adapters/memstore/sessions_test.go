package memstore_test

import (
	"testing"

	"engram/adapters/clock"
	"engram/adapters/memstore"
	"engram/domain/session"
	"engram/test/contract"
)

func TestSessionStore_Memstore(t *testing.T) {
	t.Parallel()
	contract.RunSessionStore(t, func(_ *testing.T, limits session.Limits) contract.SessionBackend {
		return memstore.NewSessionStore(clock.System{}, limits)
	})
	contract.RunSessionExporter(t, func(_ *testing.T, limits session.Limits) contract.SessionSource {
		return memstore.NewSessionStore(clock.System{}, limits)
	})
	contract.RunSessionSweep(t, func(_ *testing.T, limits session.Limits) contract.SessionSweeper {
		return memstore.NewSessionStore(clock.System{}, limits)
	})
	contract.RunSessionActivity(t, func(_ *testing.T, limits session.Limits) contract.SessionActivity {
		return memstore.NewSessionStore(clock.System{}, limits)
	})
}

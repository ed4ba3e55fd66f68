package sqlstore

import (
	"testing"

	"engram/ports"
	"engram/test/contract"
)

func TestMemoryStore_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunMemoryStore(t, func(t *testing.T) ports.MemoryStore {
		return NewMemoryStore(openSQLiteForTest(t))
	})
}

func TestMemoryStore_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunMemoryStore(t, func(t *testing.T) ports.MemoryStore {
		return NewMemoryStore(openPostgresForTest(t))
	})
}

func TestStandingMemories_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunStandingMemories(t, func(t *testing.T) contract.StandingStore {
		return NewMemoryStore(openSQLiteForTest(t))
	})
}

func TestStandingMemories_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunStandingMemories(t, func(t *testing.T) contract.StandingStore {
		return NewMemoryStore(openPostgresForTest(t))
	})
}

func TestMemoryFinder_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunMemoryFinder(t, func(t *testing.T) contract.FinderStore {
		return NewMemoryStore(openSQLiteForTest(t))
	})
}

func TestMemoryFinder_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunMemoryFinder(t, func(t *testing.T) contract.FinderStore {
		return NewMemoryStore(openPostgresForTest(t))
	})
}

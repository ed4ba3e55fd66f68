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

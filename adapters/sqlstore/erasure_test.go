package sqlstore

import (
	"testing"

	"engram/ports"
	"engram/test/contract"
)

func erasureStores(db *DB, clock ports.Clock) contract.ErasureStores {
	return contract.ErasureStores{
		Erasures: NewErasureStore(db), Jobs: NewJobStore(db), Memories: NewMemoryStore(db), Messages: NewMessageStore(db),
		Sync: NewVectorSyncStore(db), Truth: NewUserPurger(db, clock),
	}
}

func TestErasure_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunErasure(t, func(t *testing.T, clock ports.Clock) contract.ErasureStores {
		return erasureStores(openSQLiteForTest(t), clock)
	})
}

func TestErasure_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunErasure(t, func(t *testing.T, clock ports.Clock) contract.ErasureStores {
		return erasureStores(openPostgresForTest(t), clock)
	})
}

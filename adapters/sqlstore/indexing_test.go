package sqlstore

import (
	"testing"

	"engram/test/contract"
)

func TestVectorSyncStore_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunVectorSyncStore(t, func(t *testing.T) contract.VectorSyncStores {
		db := openSQLiteForTest(t)
		return contract.VectorSyncStores{Sync: NewVectorSyncStore(db), Memories: NewMemoryStore(db), Messages: NewMessageStore(db)}
	})
}

func TestVectorSyncStore_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunVectorSyncStore(t, func(t *testing.T) contract.VectorSyncStores {
		db := openPostgresForTest(t)
		return contract.VectorSyncStores{Sync: NewVectorSyncStore(db), Memories: NewMemoryStore(db), Messages: NewMessageStore(db)}
	})
}

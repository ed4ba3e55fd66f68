package memstore

import (
	"testing"

	"engram/test/contract"
)

func TestVectorSyncStore_Memstore(t *testing.T) {
	t.Parallel()
	contract.RunVectorSyncStore(t, func(t *testing.T) contract.VectorSyncStores {
		mems := NewMemoryStore()
		msgs := NewMessageStore(mems)
		return contract.VectorSyncStores{Sync: NewVectorSyncStore(mems, msgs), Memories: mems, Messages: msgs}
	})
}

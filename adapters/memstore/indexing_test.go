package memstore

import (
	"testing"

	"engram/test/contract"
)

func TestVectorSyncStore_Memstore(t *testing.T) {
	t.Parallel()
	contract.RunVectorQueue(t, func(t *testing.T) contract.VectorQueueStores {
		mems := NewMemoryStore()
		msgs := NewMessageStore(mems)
		return contract.VectorQueueStores{Sync: NewVectorSyncStore(mems, msgs), Memories: mems, Messages: msgs}
	})
}

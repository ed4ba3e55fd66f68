package memstore_test

import (
	"testing"

	"engram/adapters/memstore"
	"engram/ports"
	"engram/test/contract"
)

func TestMessageStore_Memstore(t *testing.T) {
	t.Parallel()
	contract.RunMessageStore(t, func(*testing.T) (contract.MessageStore, ports.MemoryStore) {
		memories := memstore.NewMemoryStore()
		return memstore.NewMessageStore(memories), memories
	})
}

func TestJobStore_Memstore(t *testing.T) {
	t.Parallel()
	contract.RunJobStore(t, func(*testing.T) ports.JobStore { return memstore.NewJobStore() })
}

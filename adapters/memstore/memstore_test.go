package memstore_test

import (
	"testing"

	"engram/adapters/memstore"
	"engram/ports"
	"engram/test/contract"
)

func TestMemoryStore_Memstore(t *testing.T) {
	t.Parallel()
	contract.RunMemoryStore(t, func(*testing.T) ports.MemoryStore { return memstore.NewMemoryStore() })
}

func TestAPIKeyStore_Memstore(t *testing.T) {
	t.Parallel()
	contract.RunAPIKeyStore(t, func(*testing.T) ports.APIKeyStore { return memstore.NewAPIKeyStore() })
}

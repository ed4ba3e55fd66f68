package sqlstore

import (
	"testing"

	"engram/ports"
	"engram/test/contract"
)

func TestAPIKeyStore_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunAPIKeyStore(t, func(t *testing.T) ports.APIKeyStore {
		return NewAPIKeyStore(openSQLiteForTest(t))
	})
}

func TestAPIKeyStore_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunAPIKeyStore(t, func(t *testing.T) ports.APIKeyStore {
		return NewAPIKeyStore(openPostgresForTest(t))
	})
}

package sqlstore

import (
	"testing"

	"engram/test/contract"
)

func TestAddEventStore_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunAddEventStore(t, func(t *testing.T) contract.AddEvents { return NewAddEventStore(openSQLiteForTest(t)) })
}

func TestAddEventStore_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunAddEventStore(t, func(t *testing.T) contract.AddEvents { return NewAddEventStore(openPostgresForTest(t)) })
}

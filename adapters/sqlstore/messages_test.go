package sqlstore

import (
	"testing"

	"engram/ports"
	"engram/test/contract"
)

func TestMessageStore_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunMessageStore(t, func(t *testing.T) (contract.MessageStore, ports.MemoryStore) {
		db := openSQLiteForTest(t)
		return NewMessageStore(db), NewMemoryStore(db)
	})
}

func TestMessageStore_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunMessageStore(t, func(t *testing.T) (contract.MessageStore, ports.MemoryStore) {
		db := openPostgresForTest(t)
		return NewMessageStore(db), NewMemoryStore(db)
	})
}

func TestJobStore_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunJobStore(t, func(t *testing.T) ports.JobStore { return NewJobStore(openSQLiteForTest(t)) })
}

func TestJobStore_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunJobStore(t, func(t *testing.T) ports.JobStore { return NewJobStore(openPostgresForTest(t)) })
}

func TestConversationDeleter_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunConversationDeleter(t, func(t *testing.T) contract.ConversationStores {
		store := NewMessageStore(openSQLiteForTest(t))
		return contract.ConversationStores{Messages: store, Deleter: store}
	})
}

func TestConversationDeleter_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunConversationDeleter(t, func(t *testing.T) contract.ConversationStores {
		store := NewMessageStore(openPostgresForTest(t))
		return contract.ConversationStores{Messages: store, Deleter: store}
	})
}

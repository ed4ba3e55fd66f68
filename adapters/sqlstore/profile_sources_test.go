package sqlstore

import (
	"testing"

	"engram/test/contract"
)

func TestConversationHistory_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunConversationHistory(t, func(t *testing.T) contract.ConversationHistory { return NewMessageStore(openSQLiteForTest(t)) })
}

func TestConversationHistory_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunConversationHistory(t, func(t *testing.T) contract.ConversationHistory { return NewMessageStore(openPostgresForTest(t)) })
}

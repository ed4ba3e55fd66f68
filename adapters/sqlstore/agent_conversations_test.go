package sqlstore

import (
	"testing"

	"engram/ports"
	"engram/test/contract"
)

func TestAgentConversationStore_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunAgentConversationStore(t, func(t *testing.T) ports.AgentConversationStore {
		return NewAgentConversationStore(openSQLiteForTest(t))
	})
}

func TestAgentConversationStore_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunAgentConversationStore(t, func(t *testing.T) ports.AgentConversationStore {
		return NewAgentConversationStore(openPostgresForTest(t))
	})
}

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

func TestStandingMemories_Memstore(t *testing.T) {
	t.Parallel()
	contract.RunStandingMemories(t, func(*testing.T) contract.StandingStore { return memstore.NewMemoryStore() })
}

func TestAPIKeyStore_Memstore(t *testing.T) {
	t.Parallel()
	contract.RunAPIKeyStore(t, func(*testing.T) ports.APIKeyStore { return memstore.NewAPIKeyStore() })
}

func TestProfileStore_Memstore(t *testing.T) {
	t.Parallel()
	contract.RunProfileStore(t, func(*testing.T) ports.ProfileStore { return memstore.NewProfileStore() })
}

func TestProfileRefreshQueue_Memstore(t *testing.T) {
	t.Parallel()
	contract.RunProfileRefreshQueue(t, func(*testing.T) ports.ProfileRefreshQueue { return memstore.NewProfileStore() })
}

func TestActivityStore_Memstore(t *testing.T) {
	t.Parallel()
	contract.RunActivityStore(t, func(*testing.T) ports.ActivityStore { return memstore.NewActivityStore() })
}

func TestOrgStore_Memstore(t *testing.T) {
	t.Parallel()
	contract.RunOrgStore(t, func(*testing.T) ports.OrgStore { return memstore.NewOrgStore() })
}

func TestReportStore_Memstore(t *testing.T) {
	t.Parallel()
	contract.RunReportStore(t, func(*testing.T) ports.ReportStore { return memstore.NewReportStore() })
}

func TestAuditLog_Memstore(t *testing.T) {
	t.Parallel()
	contract.RunAuditLog(t, func(*testing.T) ports.AuditLog { return memstore.NewAuditLog() })
}

func TestConversationHistory_Memstore(t *testing.T) {
	t.Parallel()
	contract.RunConversationHistory(t, func(*testing.T) contract.ConversationHistory {
		return memstore.NewMessageStore(memstore.NewMemoryStore())
	})
}

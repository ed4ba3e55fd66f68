package sqlstore

import (
	"testing"

	"engram/ports"
	"engram/test/contract"
)

func TestProfileStore_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunProfileStore(t, func(t *testing.T) ports.ProfileStore { return NewProfileStore(openSQLiteForTest(t)) })
}

func TestProfileStore_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunProfileStore(t, func(t *testing.T) ports.ProfileStore { return NewProfileStore(openPostgresForTest(t)) })
}

func TestProfileRefreshQueue_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunProfileRefreshQueue(t, func(t *testing.T) ports.ProfileRefreshQueue { return NewProfileStore(openSQLiteForTest(t)) })
}

func TestProfileRefreshQueue_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunProfileRefreshQueue(t, func(t *testing.T) ports.ProfileRefreshQueue { return NewProfileStore(openPostgresForTest(t)) })
}

func TestActivityStore_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunActivityStore(t, func(t *testing.T) ports.ActivityStore { return NewActivityStore(openSQLiteForTest(t)) })
}

func TestActivityStore_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunActivityStore(t, func(t *testing.T) ports.ActivityStore { return NewActivityStore(openPostgresForTest(t)) })
}

func TestOrgStore_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunOrgStore(t, func(t *testing.T) ports.OrgStore { return NewOrgStore(openSQLiteForTest(t)) })
}

func TestOrgStore_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunOrgStore(t, func(t *testing.T) ports.OrgStore { return NewOrgStore(openPostgresForTest(t)) })
}

func TestReportStore_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunReportStore(t, func(t *testing.T) ports.ReportStore { return NewReportStore(openSQLiteForTest(t)) })
}

func TestReportStore_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunReportStore(t, func(t *testing.T) ports.ReportStore { return NewReportStore(openPostgresForTest(t)) })
}

func TestAuditLog_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunAuditLog(t, func(t *testing.T) ports.AuditLog { return NewReportStore(openSQLiteForTest(t)) })
}

func TestAuditLog_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunAuditLog(t, func(t *testing.T) ports.AuditLog { return NewReportStore(openPostgresForTest(t)) })
}
func TestConversationHistory_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunConversationHistory(t, func(t *testing.T) contract.ConversationHistory { return NewMessageStore(openSQLiteForTest(t)) })
}

func TestConversationHistory_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunConversationHistory(t, func(t *testing.T) contract.ConversationHistory { return NewMessageStore(openPostgresForTest(t)) })
}

package ports

import (
	"context"

	"engram/domain/memory"
)

// Record is one stored row of a user's data as the export document carries it:
// column name to value, every column but the owner's ids and the store's own
// bookkeeping (claims, vector and index state, which are rebuilt). Values are
// nil, string, bool, int64, float64 or time.Time; a record read from a document
// may hold float64 for whole numbers and strings for times, which the store
// converts by its column types.
type Record map[string]any

// UserRecords reads and writes whole a user's rows of the SQL truth tables, for
// the export document (GET /v1/users/{user}/export) and its import. Sections are
// named by RecordSections; the records of each are in the store's stable order,
// so that two exports of the same data are equal.
type UserRecords interface {
	// ExportUser returns every section, empty ones included.
	ExportUser(ctx context.Context, scope memory.Scope) (map[string][]Record, error)
	// ImportUser stores the records in one transaction, each unless a row with its
	// key is stored already (an import is idempotent), and says how many of each
	// section it wrote. A record that names a column the table lacks, or a value
	// of the wrong type, is an *invalid.Error naming it and nothing is written; a
	// user being erased is an *ErasingError.
	ImportUser(ctx context.Context, scope memory.Scope, sections map[string][]Record) (map[string]int, error)
}

// The sections of UserRecords, in document order.
const (
	RecordMemories      = "memories"
	RecordMemoryHistory = "memory_history"
	RecordMessages      = "messages"
	RecordProfile       = "profile"
	RecordOrg           = "org"
	RecordNameKeys      = "name_keys"
	RecordActivity      = "activity"
	RecordReports       = "reports"
	RecordTraces        = "traces"
	RecordAudit         = "audit"
	// The OpenAI Conversations API's conversations and their items.
	RecordAgentConversations = "agent_conversations"
	RecordAgentItems         = "agent_conversation_items"
	// The record of each add of the mem0-compatible API.
	RecordAdds = "adds"
)

// RecordSections lists every section of UserRecords.
var RecordSections = []string{RecordMemories, RecordMemoryHistory, RecordMessages, RecordProfile, RecordOrg,
	RecordNameKeys, RecordActivity, RecordReports, RecordTraces, RecordAudit, RecordAgentConversations, RecordAgentItems, RecordAdds}

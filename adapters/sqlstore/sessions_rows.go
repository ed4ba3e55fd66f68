package sqlstore

import (
	"time"

	"github.com/uptrace/bun"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/domain/session"
)

// sessionRow is one row of short_term_sessions: the meta (NULL created_at once it
// expired), the summary, the revision and the fold queue of a session.
type sessionRow struct {
	bun.BaseModel `bun:"table:short_term_sessions,alias:s"`

	TenantID         string    `bun:"tenant_id,pk"`
	UserID           string    `bun:"user_id,pk"`
	FlowID           string    `bun:"flow_id,pk"`
	SessionID        string    `bun:"session_id,pk"`
	FlowName         string    `bun:"flow_name,notnull"`
	CreatedAt        time.Time `bun:"created_at,nullzero"`
	LastActiveAt     time.Time `bun:"last_active_at,nullzero"`
	MessageCount     int64     `bun:"message_count,notnull"`
	Held             int       `bun:"held,notnull"`
	MetaExpiresAt    time.Time `bun:"meta_expires_at,nullzero"`
	Summary          string    `bun:"summary,nullzero"`
	SummaryVersion   int64     `bun:"summary_version,notnull"`
	SummaryAt        time.Time `bun:"summary_at,nullzero"`
	SummaryExpiresAt time.Time `bun:"summary_expires_at,nullzero"`
	Rev              int64     `bun:"rev,notnull"`
	FoldDueAt        time.Time `bun:"fold_due_at,nullzero"`
	FoldHolder       string    `bun:"fold_holder,nullzero"`
	FoldClaimUntil   time.Time `bun:"fold_claim_until,nullzero"`
}

// shortTermMessageRow is one message of short_term_messages.
type shortTermMessageRow struct {
	bun.BaseModel `bun:"table:short_term_messages,alias:stm"`

	TenantID   string    `bun:"tenant_id,pk"`
	UserID     string    `bun:"user_id,pk"`
	FlowID     string    `bun:"flow_id,pk"`
	SessionID  string    `bun:"session_id,pk"`
	Seq        int64     `bun:"seq,pk"`
	MessageID  string    `bun:"message_id,notnull"`
	ExchangeID string    `bun:"exchange_id,notnull"`
	Role       string    `bun:"role,notnull"`
	Content    string    `bun:"content,notnull"`
	At         time.Time `bun:"at,notnull"`
}

// exchangeRow is one recent exchange id of short_term_exchanges.
type exchangeRow struct {
	bun.BaseModel `bun:"table:short_term_exchanges,alias:ste"`

	TenantID   string `bun:"tenant_id,pk"`
	UserID     string `bun:"user_id,pk"`
	FlowID     string `bun:"flow_id,pk"`
	SessionID  string `bun:"session_id,pk"`
	ExchangeID string `bun:"exchange_id,pk"`
	Seq        int64  `bun:"seq,notnull"`
}

func newSessionRow(ref session.Ref) sessionRow {
	return sessionRow{TenantID: ref.Scope.Tenant, UserID: ref.Scope.User, FlowID: ref.FlowID, SessionID: ref.SessionID}
}

func (r *sessionRow) ref() session.Ref {
	return session.Ref{Scope: memory.Scope{Tenant: r.TenantID, User: r.UserID}, FlowID: r.FlowID, SessionID: r.SessionID}
}

func (r *sessionRow) metaLive(now time.Time) bool {
	return !r.CreatedAt.IsZero() && r.MetaExpiresAt.After(now)
}

func (r *sessionRow) summaryLive(now time.Time) bool {
	return r.Summary != "" && r.SummaryExpiresAt.After(now)
}

func (r *sessionRow) exists(now time.Time) bool { return r.metaLive(now) || r.summaryLive(now) }

// meta is the row's meta, or the zero Meta (with the ref) when it expired.
func (r *sessionRow) meta(now time.Time) session.Meta {
	if !r.metaLive(now) {
		return session.Meta{Ref: r.ref()}
	}
	return session.Meta{Ref: r.ref(), FlowName: r.FlowName, CreatedAt: dbTime(r.CreatedAt), LastActiveAt: dbTime(r.LastActiveAt),
		MessageCount: r.MessageCount, Held: r.Held}
}

func (r *sessionRow) summary(now time.Time) session.Summary {
	if !r.summaryLive(now) {
		return session.Summary{}
	}
	return session.Summary{Text: r.Summary, Version: r.SummaryVersion, UpdatedAt: dbTime(r.SummaryAt)}
}

// clearMeta forgets an expired meta (messages and exchanges go with it).
func (r *sessionRow) clearMeta() {
	r.FlowName, r.CreatedAt, r.LastActiveAt, r.MetaExpiresAt = "", time.Time{}, time.Time{}, time.Time{}
	r.MessageCount, r.Held = 0, 0
	r.FoldDueAt, r.FoldHolder, r.FoldClaimUntil = time.Time{}, "", time.Time{}
}

func toShortTermMessageRow(ref session.Ref, m session.Message) shortTermMessageRow {
	return shortTermMessageRow{TenantID: ref.Scope.Tenant, UserID: ref.Scope.User, FlowID: ref.FlowID, SessionID: ref.SessionID,
		Seq: m.Seq, MessageID: m.ID, ExchangeID: m.ExchangeID, Role: string(m.Role), Content: m.Content, At: dbTime(m.At)}
}

func (r *shortTermMessageRow) toMessage() session.Message {
	return session.Message{ID: r.MessageID, ExchangeID: r.ExchangeID, Role: conversation.Role(r.Role), Content: r.Content,
		At: dbTime(r.At), Seq: r.Seq}
}

// refWhere is the condition that selects one session's rows of any of the three
// tables under alias; refArgs are its arguments.
func refWhere(alias string) string {
	return alias + ".tenant_id = ? AND " + alias + ".user_id = ? AND " + alias + ".flow_id = ? AND " + alias + ".session_id = ?"
}

func refArgs(ref session.Ref) []any {
	return []any{ref.Scope.Tenant, ref.Scope.User, ref.FlowID, ref.SessionID}
}

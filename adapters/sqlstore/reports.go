package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"engram/domain/memory"
	"engram/domain/profile"
	"engram/ports"
)

// ReportStore keeps evaluation reports in profile_reports and the audit log in
// profile_audit.
type ReportStore struct {
	db *DB
}

var (
	_ ports.ReportStore = (*ReportStore)(nil)
	_ ports.AuditLog    = (*ReportStore)(nil)
)

// NewReportStore serves ports.ReportStore and ports.AuditLog from db.
func NewReportStore(db *DB) *ReportStore { return &ReportStore{db: db} }

// SaveReport stores a new report.
func (s *ReportStore) SaveReport(ctx context.Context, r profile.Report) error {
	row, err := toReportRow(r)
	if err != nil {
		return err
	}
	_, err = s.db.bun.NewInsert().Model(&row).Exec(ctx)
	return wrapErr("insert report", err)
}

// Report returns one report of the user.
func (s *ReportStore) Report(ctx context.Context, scope memory.Scope, id string) (profile.Report, error) {
	var row reportRow
	err := s.db.bun.NewSelect().Model(&row).
		Where("pr.id = ?", id).Where("pr.tenant_id = ?", scope.Tenant).Where("pr.user_id = ?", scope.User).
		Scan(ctx)
	if err != nil {
		return profile.Report{}, wrapErr("get report", err)
	}
	return row.toReport()
}

// Reports returns the user's reports before beforeID, newest first.
func (s *ReportStore) Reports(ctx context.Context, scope memory.Scope, beforeID string, limit int) ([]profile.Report, error) {
	var rows []reportRow
	q := s.db.bun.NewSelect().Model(&rows).
		Where("pr.tenant_id = ?", scope.Tenant).Where("pr.user_id = ?", scope.User).
		OrderExpr("pr.id DESC").Limit(int64(max(limit, 0)))
	if beforeID != "" {
		q = q.Where("pr.id < ?", beforeID)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, wrapErr("list reports", err)
	}
	out := make([]profile.Report, 0, len(rows))
	for i := range rows {
		r, err := rows[i].toReport()
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// PurgeUser removes the user's reports and, in the same transaction, puts the
// user's fingerprint in place of their id in the audit log. Their audit entries
// stay: they hold no content.
func (s *ReportStore) PurgeUser(ctx context.Context, scope memory.Scope) (map[string]int64, error) {
	counts := map[string]int64{}
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := purgeScopeTx(ctx, tx, scope, map[string]string{"profile_reports": "profile_reports"}, counts); err != nil {
			return err
		}
		counts["audit_entries"] = 0
		for _, column := range []string{"target_user", "actor"} {
			res, err := tx.NewUpdate().TableExpr("profile_audit").
				Set("? = ?", bun.Ident(column), scope.Fingerprint()).
				Where("tenant_id = ?", scope.Tenant).Where("? = ?", bun.Ident(column), scope.User).Exec(ctx)
			if err != nil {
				return wrapErr("pseudonymise audit", err)
			}
			n, _ := res.RowsAffected()
			counts["audit_entries"] += n
		}
		return nil
	})
	return counts, err
}

// AppendAudit stores an audit entry.
func (s *ReportStore) AppendAudit(ctx context.Context, e ports.AuditEntry) error {
	row := auditRow{ID: e.ID, TenantID: e.Tenant, At: dbTime(e.At), Actor: e.Actor, Action: e.Action, TargetUser: e.TargetUser}
	_, err := s.db.bun.NewInsert().Model(&row).Exec(ctx)
	return wrapErr("append audit", err)
}

// Audit returns the matching entries, oldest first.
func (s *ReportStore) Audit(ctx context.Context, q ports.AuditQuery) ([]ports.AuditEntry, error) {
	var rows []auditRow
	sel := s.db.bun.NewSelect().Model(&rows).Where("pa.tenant_id = ?", q.Tenant).
		OrderExpr("pa.id ASC").Limit(int64(max(q.Limit, 0)))
	if q.TargetUser != "" {
		sel = sel.Where("pa.target_user = ?", q.TargetUser)
	}
	if q.Actor != "" {
		sel = sel.Where("pa.actor = ?", q.Actor)
	}
	if !q.Since.IsZero() {
		sel = sel.Where("pa.at >= ?", dbTime(q.Since))
	}
	if q.AfterID != "" {
		sel = sel.Where("pa.id > ?", q.AfterID)
	}
	if err := sel.Scan(ctx); err != nil {
		return nil, wrapErr("read audit", err)
	}
	out := make([]ports.AuditEntry, len(rows))
	for i, r := range rows {
		out[i] = ports.AuditEntry{ID: r.ID, Tenant: r.TenantID, At: dbTime(r.At), Actor: r.Actor, Action: r.Action, TargetUser: r.TargetUser}
	}
	return out, nil
}

type reportRow struct {
	bun.BaseModel `bun:"table:profile_reports,alias:pr"`

	ID             string    `bun:"id,pk"`
	TenantID       string    `bun:"tenant_id"`
	UserID         string    `bun:"user_id"`
	Actor          string    `bun:"actor"`
	Report         string    `bun:"report"`
	Facts          string    `bun:"facts"`
	FactsUsed      string    `bun:"facts_used"`
	Generator      string    `bun:"generator"`
	Model          string    `bun:"model,nullzero"`
	FallbackReason string    `bun:"fallback_reason,nullzero"`
	Language       string    `bun:"language"`
	GeneratedAt    time.Time `bun:"generated_at"`
}

type factJSON struct {
	ID     string `json:"id"`
	Source string `json:"source"`
	Key    string `json:"key,omitempty"`
	Text   string `json:"text"`
}

func toReportRow(r profile.Report) (reportRow, error) {
	facts := make([]factJSON, 0, len(r.Facts))
	for _, f := range r.Facts {
		facts = append(facts, factJSON{ID: f.ID, Source: string(f.Source), Key: f.Key, Text: f.Text})
	}
	fb, err := json.Marshal(facts)
	if err != nil {
		return reportRow{}, fmt.Errorf("sqlstore: report facts: %w", err)
	}
	ub, err := json.Marshal(orEmpty(r.FactsUsed))
	if err != nil {
		return reportRow{}, fmt.Errorf("sqlstore: report facts used: %w", err)
	}
	return reportRow{
		ID: r.ID, TenantID: r.Scope.Tenant, UserID: r.Scope.User, Actor: r.Actor, Report: r.Text,
		Facts: string(fb), FactsUsed: string(ub), Generator: string(r.Generator), Model: r.Model,
		FallbackReason: r.FallbackReason, Language: r.Language, GeneratedAt: dbTime(r.GeneratedAt),
	}, nil
}

func (r *reportRow) toReport() (profile.Report, error) {
	var facts []factJSON
	var used []string
	if err := json.Unmarshal([]byte(r.Facts), &facts); err != nil {
		return profile.Report{}, fmt.Errorf("sqlstore: report %s: facts: %w", r.ID, err)
	}
	if err := json.Unmarshal([]byte(r.FactsUsed), &used); err != nil {
		return profile.Report{}, fmt.Errorf("sqlstore: report %s: facts_used: %w", r.ID, err)
	}
	out := profile.Report{
		ID: r.ID, Scope: memory.Scope{Tenant: r.TenantID, User: r.UserID}, Actor: r.Actor, Text: r.Report,
		FactsUsed: nilIfEmpty(used), Generator: profile.Generator(r.Generator), Model: r.Model,
		FallbackReason: r.FallbackReason, Language: r.Language, GeneratedAt: dbTime(r.GeneratedAt),
	}
	for _, f := range facts {
		out.Facts = append(out.Facts, profile.Fact{ID: f.ID, Source: profile.FactSource(f.Source), Key: f.Key, Text: f.Text})
	}
	return out, nil
}

type auditRow struct {
	bun.BaseModel `bun:"table:profile_audit,alias:pa"`

	ID         string    `bun:"id,pk"`
	TenantID   string    `bun:"tenant_id"`
	At         time.Time `bun:"at"`
	Actor      string    `bun:"actor"`
	Action     string    `bun:"action"`
	TargetUser string    `bun:"target_user"`
}

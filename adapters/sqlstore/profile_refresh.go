package sqlstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"engram/domain/memory"
	"engram/domain/profile"
	"engram/ports"
)

// MarkProfileStale records a change, debounced with profile.NextMark inside the
// transaction that reads the pending mark.
func (s *ProfileStore) MarkProfileStale(ctx context.Context, scope memory.Scope, now time.Time, debounce, maxWait time.Duration) error {
	return s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var rows []refreshRow
		q := tx.NewSelect().Model(&rows).
			Where("pr.tenant_id = ?", scope.Tenant).
			Where("pr.user_id = ?", scope.User)
		if s.db.dialect == DialectPostgres {
			q = q.For("UPDATE")
		}
		if err := q.Scan(ctx); err != nil {
			return wrapErr("get profile refresh", err)
		}
		if len(rows) == 0 {
			mark := profile.NextMark(nil, now, debounce, maxWait)
			row := refreshRow{TenantID: scope.Tenant, UserID: scope.User, FirstMarkedAt: dbTime(mark.FirstMarked),
				DueAt: dbTime(mark.Due), Generation: 1}
			_, err := tx.NewInsert().Model(&row).Exec(ctx)
			return wrapErr("insert profile refresh", err)
		}
		row := rows[0]
		mark := profile.NextMark(&profile.RefreshMark{FirstMarked: row.FirstMarkedAt, Due: row.DueAt}, now, debounce, maxWait)
		_, err := tx.NewUpdate().TableExpr("profile_refreshes").
			Set("first_marked_at = ?", dbTime(mark.FirstMarked)).
			Set("due_at = ?", dbTime(mark.Due)).
			Set("generation = generation + 1").
			Where("tenant_id = ?", scope.Tenant).Where("user_id = ?", scope.User).
			Exec(ctx)
		return wrapErr("update profile refresh", err)
	})
}

// ClaimStaleProfiles claims due refreshes nobody holds, earliest due first
// (FOR UPDATE SKIP LOCKED on PostgreSQL).
func (s *ProfileStore) ClaimStaleProfiles(ctx context.Context, worker string, now time.Time, lease time.Duration, limit int) ([]ports.StaleProfile, error) {
	if limit <= 0 {
		return nil, nil
	}
	lock := ""
	if s.db.dialect == DialectPostgres {
		lock = "FOR UPDATE SKIP LOCKED"
	}
	query := `UPDATE profile_refreshes SET claimed_by = ?0, claim_until = ?1
		WHERE (tenant_id, user_id) IN (
			SELECT o.tenant_id, o.user_id FROM profile_refreshes AS o
			WHERE o.due_at <= ?2 AND (o.claim_until IS NULL OR o.claim_until <= ?2)
			ORDER BY o.due_at, o.tenant_id, o.user_id LIMIT ?3 ` + lock + `)
		RETURNING tenant_id, user_id, generation`
	var rows []refreshRow
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		rows = rows[:0]
		return tx.NewRaw(query, worker, dbTime(now.Add(lease)), dbTime(now), limit).Scan(ctx, &rows)
	})
	if err != nil && classify(err) != classNotFound {
		return nil, wrapErr("claim profile refreshes", err)
	}
	out := make([]ports.StaleProfile, 0, len(rows))
	for _, r := range rows {
		out = append(out, ports.StaleProfile{Scope: memory.Scope{Tenant: r.TenantID, User: r.UserID}, Generation: r.Generation})
	}
	return out, nil
}

// FinishProfileRefresh removes the refresh if it was not marked again since the
// claim, else releases it; either only while worker holds it.
func (s *ProfileStore) FinishProfileRefresh(ctx context.Context, worker string, sp ports.StaleProfile) error {
	return s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewDelete().TableExpr("profile_refreshes").
			Where("tenant_id = ?", sp.Scope.Tenant).Where("user_id = ?", sp.Scope.User).
			Where("claimed_by = ?", worker).Where("generation = ?", sp.Generation).
			Exec(ctx)
		if err != nil {
			return wrapErr("finish profile refresh", err)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return nil
		}
		_, err = tx.NewUpdate().TableExpr("profile_refreshes").
			Set("claimed_by = NULL").Set("claim_until = NULL").
			Where("tenant_id = ?", sp.Scope.Tenant).Where("user_id = ?", sp.Scope.User).
			Where("claimed_by = ?", worker).
			Exec(ctx)
		return wrapErr("release profile refresh", err)
	})
}

type refreshRow struct {
	bun.BaseModel `bun:"table:profile_refreshes,alias:pr"`

	TenantID      string    `bun:"tenant_id,pk"`
	UserID        string    `bun:"user_id,pk"`
	FirstMarkedAt time.Time `bun:"first_marked_at"`
	DueAt         time.Time `bun:"due_at"`
	Generation    int64     `bun:"generation"`
	ClaimedBy     string    `bun:"claimed_by,nullzero"`
	ClaimUntil    time.Time `bun:"claim_until,nullzero"`
}

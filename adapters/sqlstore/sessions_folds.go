package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"engram/domain/session"
	"engram/ports"
)

// ClaimFolds claims due sessions in one UPDATE … RETURNING whose subquery takes
// the longest-waiting ones (SKIP LOCKED on PostgreSQL, so concurrent folders take
// different sessions), then reads each whole.
func (s *SessionStore) ClaimFolds(ctx context.Context, c ports.FoldClaim) ([]session.View, error) {
	if c.Holder == "" || c.Lease <= 0 || c.Limit <= 0 {
		return nil, fmt.Errorf("sqlstore: claim folds: a holder, a positive lease and a limit are required")
	}
	lock := ""
	if s.db.dialect == DialectPostgres {
		lock = "FOR UPDATE SKIP LOCKED"
	}
	query := `UPDATE short_term_sessions SET fold_holder = ?0, fold_claim_until = ?1
		WHERE (tenant_id, user_id, flow_id, session_id) IN (
			SELECT d.tenant_id, d.user_id, d.flow_id, d.session_id FROM short_term_sessions AS d
			WHERE d.fold_due_at IS NOT NULL AND d.fold_due_at <= ?2
				AND (d.fold_holder IS NULL OR d.fold_claim_until <= ?2)
			ORDER BY d.fold_due_at LIMIT ?3 ` + lock + `)
		RETURNING tenant_id, user_id, flow_id, session_id`
	var claimed []sessionRow
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		claimed = claimed[:0]
		return tx.NewRaw(query, c.Holder, dbTime(c.Now.Add(c.Lease)), dbTime(c.Now), c.Limit).Scan(ctx, &claimed)
	})
	if err != nil && classify(err) != classNotFound {
		return nil, wrapErr("claim folds", err)
	}
	out := make([]session.View, 0, len(claimed))
	for i := range claimed {
		ref := claimed[i].ref()
		v, _, err := s.readView(ctx, s.db.bun, ref, 0)
		if err != nil && !errors.Is(err, ports.ErrNotFound) {
			return nil, err
		}
		v.Meta.Ref = ref
		out = append(out, v)
	}
	return out, nil
}

// ApplyFold removes the folded messages and writes the summary in one transaction,
// if the claim and the summary version still hold.
func (s *SessionStore) ApplyFold(ctx context.Context, f session.Fold) error {
	return s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		row, found, err := s.lockRow(ctx, tx, f.Ref)
		if err != nil {
			return err
		}
		now := s.now()
		switch {
		case !found || row.FoldHolder != f.Holder || !row.FoldClaimUntil.After(dbTime(f.At)):
			return fmt.Errorf("sqlstore: apply fold of %s: the claim is no longer %s's: %w", f.Ref, f.Holder, ports.ErrConflict)
		case row.summary(now).Version != f.BaseVersion || !row.metaLive(now):
			return fmt.Errorf("sqlstore: apply fold of %s: the summary moved past version %d: %w", f.Ref, f.BaseVersion, ports.ErrConflict)
		}
		removed := int64(0)
		if len(f.MessageIDs) > 0 {
			res, err := tx.NewDelete().Model((*shortTermMessageRow)(nil)).Where(refWhere("stm"), refArgs(f.Ref)...).
				Where("stm.message_id IN (?)", bun.List(f.MessageIDs)).Exec(ctx)
			if err != nil {
				return wrapErr("delete folded messages", err)
			}
			removed, _ = res.RowsAffected()
		}
		row.Held -= int(removed)
		row.Summary, row.SummaryVersion, row.SummaryAt = f.Summary, f.BaseVersion+1, dbTime(f.At)
		row.SummaryExpiresAt = now.Add(s.limits.SummaryTTL)
		row.Rev++
		row.FoldHolder, row.FoldClaimUntil, row.FoldDueAt = "", time.Time{}, time.Time{}
		if f.FoldAt > 0 && row.Held >= f.FoldAt {
			row.FoldDueAt = dbTime(f.At)
		}
		return saveRow(ctx, tx, &row, true)
	})
}

// ReleaseFold gives the claim back with the next due time (NULL: off the queue).
func (s *SessionStore) ReleaseFold(ctx context.Context, ref session.Ref, holder string, retryAt time.Time) error {
	return s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewUpdate().Model((*sessionRow)(nil)).
			Set("fold_holder = NULL, fold_claim_until = NULL, fold_due_at = ?", nullable(dbTime(retryAt))).
			Where(refWhere("s"), refArgs(ref)...).
			Where("s.fold_holder = ?", holder).
			Exec(ctx)
		return wrapErr("release fold", err)
	})
}

// SessionRefs lists the sessions held, the least recently active first.
func (s *SessionStore) SessionRefs(ctx context.Context, limit int) ([]session.Ref, error) {
	now := s.now()
	var rows []sessionRow
	err := s.db.bun.NewSelect().Model(&rows).
		Column("tenant_id", "user_id", "flow_id", "session_id").
		WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("s.created_at IS NOT NULL AND s.meta_expires_at > ?", now).
				WhereOr("s.summary IS NOT NULL AND s.summary_expires_at > ?", now)
		}).
		OrderExpr("COALESCE(s.last_active_at, s.summary_at), s.tenant_id, s.user_id, s.flow_id, s.session_id").
		Limit(int64(limit)).Scan(ctx)
	if err != nil && classify(err) != classNotFound {
		return nil, wrapErr("list session refs", err)
	}
	out := make([]session.Ref, len(rows))
	for i := range rows {
		out[i] = rows[i].ref()
	}
	return out, nil
}

// ExportSession reads the whole session and its recent exchange ids.
func (s *SessionStore) ExportSession(ctx context.Context, ref session.Ref) (session.State, error) {
	v, row, err := s.readView(ctx, s.db.bun, ref, 0)
	if err != nil {
		return session.State{}, err
	}
	st := session.State{View: v, Rev: row.Rev}
	if !v.Meta.Live() {
		return st, nil
	}
	var ids []exchangeRow
	err = s.db.bun.NewSelect().Model(&ids).Where(refWhere("ste"), refArgs(ref)...).OrderExpr("ste.seq, ste.exchange_id").Scan(ctx)
	if err != nil && classify(err) != classNotFound {
		return session.State{}, wrapErr("read session exchanges", err)
	}
	for _, id := range ids {
		st.ExchangeIDs = append(st.ExchangeIDs, id.ExchangeID)
	}
	return st, nil
}

// RemoveSession deletes the session if its revision is still rev.
func (s *SessionStore) RemoveSession(ctx context.Context, ref session.Ref, rev int64) error {
	return s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		row, found, err := s.lockRow(ctx, tx, ref)
		switch {
		case err != nil:
			return err
		case !found || !row.exists(s.now()):
			return fmt.Errorf("sqlstore: remove %s: %w", ref, ports.ErrNotFound)
		case row.Rev != rev:
			return fmt.Errorf("sqlstore: remove %s: revision %d, not %d: %w", ref, row.Rev, rev, ports.ErrConflict)
		}
		return deleteSessionParts(ctx, tx, ref, true)
	})
}

// ReplaceSession writes the whole session if its revision is still rev.
func (s *SessionStore) ReplaceSession(ctx context.Context, in session.State, rev int64) error {
	ref := in.Meta.Ref
	return s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		row, found, err := s.lockRow(ctx, tx, ref)
		if err != nil {
			return err
		}
		now := s.now()
		current := int64(0)
		if found && row.exists(now) {
			current = row.Rev
		}
		if current != rev {
			return fmt.Errorf("sqlstore: replace %s: revision %d, not %d: %w", ref, current, rev, ports.ErrConflict)
		}
		if found {
			if err := deleteSessionParts(ctx, tx, ref, false); err != nil {
				return err
			}
		}
		next := newSessionRow(ref)
		next.Rev, next.FoldDueAt = row.Rev+1, row.FoldDueAt
		if err := s.writeState(ctx, tx, &next, in, now); err != nil {
			return err
		}
		return saveRow(ctx, tx, &next, found)
	})
}

// writeState fills next from st and inserts its messages and exchange ids.
func (s *SessionStore) writeState(ctx context.Context, tx bun.Tx, next *sessionRow, st session.State, now time.Time) error {
	ref := next.ref()
	if st.Summary.Text != "" {
		next.Summary, next.SummaryVersion, next.SummaryAt = st.Summary.Text, st.Summary.Version, dbTime(st.Summary.UpdatedAt)
		next.SummaryExpiresAt = now.Add(s.limits.SummaryTTL)
	}
	if !st.Meta.Live() {
		return nil
	}
	m := st.Meta
	next.FlowName, next.CreatedAt, next.LastActiveAt = m.FlowName, dbTime(m.CreatedAt), dbTime(m.LastActiveAt)
	next.MessageCount, next.MetaExpiresAt = m.MessageCount, now.Add(s.limits.MessageTTL)
	msgs := st.Messages
	if len(msgs) > s.limits.MaxHistory {
		msgs = msgs[len(msgs)-s.limits.MaxHistory:]
	}
	next.Held = len(msgs)
	if len(msgs) > 0 {
		rows := make([]shortTermMessageRow, len(msgs))
		for i, msg := range msgs {
			rows[i] = toShortTermMessageRow(ref, msg)
		}
		if _, err := tx.NewInsert().Model(&rows).Exec(ctx); err != nil {
			return wrapErr("insert session messages", err)
		}
	}
	ids := st.ExchangeIDs
	if len(ids) > session.MaxExchangeIDs {
		ids = ids[len(ids)-session.MaxExchangeIDs:]
	}
	if len(ids) == 0 {
		return nil
	}
	rows := make([]exchangeRow, len(ids))
	for i, id := range ids {
		// The newest id gets the message count, as AppendExchange numbers them.
		rows[i] = exchangeRow{TenantID: next.TenantID, UserID: next.UserID, FlowID: next.FlowID, SessionID: next.SessionID,
			ExchangeID: id, Seq: m.MessageCount - int64(2*(len(ids)-1-i))}
	}
	_, err := tx.NewInsert().Model(&rows).Exec(ctx)
	return wrapErr("insert session exchanges", err)
}

// SweepExpiredSessions deletes the messages and exchange ids of up to limit
// sessions whose meta expired, and the rows with nothing live left. Each session
// is checked again inside its own transaction, so one revived meanwhile is kept.
func (s *SessionStore) SweepExpiredSessions(ctx context.Context, now time.Time, limit int) (int64, error) {
	now = dbTime(now)
	var rows []sessionRow
	err := s.db.bun.NewSelect().Model(&rows).Column("tenant_id", "user_id", "flow_id", "session_id").
		WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("s.created_at IS NOT NULL AND s.meta_expires_at <= ?", now).
				WhereOr("s.created_at IS NULL AND (s.summary_expires_at IS NULL OR s.summary_expires_at <= ?)", now)
		}).Limit(int64(limit)).Scan(ctx)
	if err != nil && classify(err) != classNotFound {
		return 0, wrapErr("find expired sessions", err)
	}
	var swept int64
	for i := range rows {
		done, err := s.sweepOne(ctx, rows[i].ref(), now)
		if err != nil {
			return swept, err
		}
		if done {
			swept++
		}
	}
	return swept, nil
}

func (s *SessionStore) sweepOne(ctx context.Context, ref session.Ref, now time.Time) (bool, error) {
	swept := false
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		swept = false
		row, found, err := s.lockRow(ctx, tx, ref)
		if err != nil || !found || row.metaLive(now) {
			return err
		}
		swept = true
		if row.summaryLive(now) {
			if err := deleteSessionParts(ctx, tx, ref, false); err != nil {
				return err
			}
			row.clearMeta()
			return saveRow(ctx, tx, &row, true)
		}
		return deleteSessionParts(ctx, tx, ref, true)
	})
	return swept, err
}

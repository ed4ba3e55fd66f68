package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"engram/domain/memory"
	"engram/domain/session"
	"engram/ports"
)

// SessionStore keeps short-term sessions in short_term_sessions, _messages and
// _exchanges: the embedded default's session store, and the fallback while Redis
// is unreachable. Expiry is emulated against its clock: what passed its time is
// invisible at once and swept by SweepExpiredSessions.
type SessionStore struct {
	db     *DB
	clock  ports.Clock
	limits session.Limits
}

var (
	_ ports.SessionStore    = (*SessionStore)(nil)
	_ ports.SessionFolds    = (*SessionStore)(nil)
	_ ports.SessionExporter = (*SessionStore)(nil)
	_ ports.SessionImporter = (*SessionStore)(nil)
)

// NewSessionStore serves the session ports from db, bounded by limits.
func NewSessionStore(db *DB, clock ports.Clock, limits session.Limits) *SessionStore {
	return &SessionStore{db: db, clock: clock, limits: limits.WithDefaults()}
}

func (s *SessionStore) now() time.Time { return dbTime(s.clock.Now()) }

// AppendExchange locks (or creates) the session row, adds the two messages and the
// exchange id, trims, and updates the row, in one transaction.
func (s *SessionStore) AppendExchange(ctx context.Context, a ports.SessionAppend) (ports.SessionAppended, error) {
	var out ports.SessionAppended
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var err error
		out, err = s.appendTx(ctx, tx, a)
		return err
	})
	return out, err
}

func (s *SessionStore) appendTx(ctx context.Context, tx bun.Tx, a ports.SessionAppend) (ports.SessionAppended, error) {
	x, now := a.Exchange, s.now()
	row, found, err := s.lockRow(ctx, tx, x.Ref)
	if err != nil {
		return ports.SessionAppended{}, err
	}
	if err := restartExpired(ctx, tx, &row, found, x, now); err != nil {
		return ports.SessionAppended{}, err
	}
	msgs := x.Messages()
	// The exchange id first: taken already means a retry, and nothing is written.
	ex := exchangeRow{TenantID: row.TenantID, UserID: row.UserID, FlowID: row.FlowID, SessionID: row.SessionID, ExchangeID: x.ID,
		Seq: row.MessageCount + int64(len(msgs))}
	res, err := tx.NewInsert().Model(&ex).On("CONFLICT DO NOTHING").Exec(ctx)
	if err != nil {
		return ports.SessionAppended{}, wrapErr("insert session exchange", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ports.SessionAppended{Meta: row.meta(now), Duplicate: true, FoldQueued: !row.FoldDueAt.IsZero()}, nil
	}
	rows := make([]shortTermMessageRow, len(msgs))
	for i, m := range msgs {
		m.Seq = row.MessageCount + int64(i) + 1
		rows[i] = toShortTermMessageRow(x.Ref, m)
	}
	row.MessageCount += int64(len(msgs))
	if _, err := tx.NewInsert().Model(&rows).Exec(ctx); err != nil {
		return ports.SessionAppended{}, wrapErr("insert session messages", err)
	}
	trimmed, err := trimSession(ctx, tx, x.Ref, row.MessageCount, s.limits.MaxHistory)
	if err != nil {
		return ports.SessionAppended{}, err
	}
	row.Held += len(msgs) - trimmed
	queued := s.touch(&row, x, a.FoldAt, now)
	if err := saveRow(ctx, tx, &row, found); err != nil {
		return ports.SessionAppended{}, err
	}
	return ports.SessionAppended{Meta: row.meta(now), FoldQueued: queued}, nil
}

// restartExpired starts the session afresh when its meta has expired: what is
// left of it goes, and it is created at this exchange.
func restartExpired(ctx context.Context, tx bun.Tx, row *sessionRow, found bool, x session.Exchange, now time.Time) error {
	if row.metaLive(now) {
		return nil
	}
	if found {
		if err := deleteSessionParts(ctx, tx, x.Ref, false); err != nil {
			return err
		}
	}
	row.clearMeta()
	row.CreatedAt = dbTime(x.At)
	return nil
}

// touch records an appended exchange in the session's row: last activity, the
// lifetimes it renews, the flow's name, the revision, and the fold due once the
// session holds foldAt messages (0: never). It reports whether a fold is queued.
func (s *SessionStore) touch(row *sessionRow, x session.Exchange, foldAt int, now time.Time) bool {
	row.LastActiveAt, row.MetaExpiresAt = dbTime(x.At), now.Add(s.limits.MessageTTL)
	if x.FlowName != "" {
		row.FlowName = x.FlowName
	}
	if row.summaryLive(now) {
		row.SummaryExpiresAt = now.Add(s.limits.SummaryTTL)
	}
	row.Rev++
	queued := foldAt > 0 && row.Held >= foldAt
	if queued && row.FoldDueAt.IsZero() {
		row.FoldDueAt = dbTime(x.At)
	}
	return queued
}

// lockRow reads the session row for update; a missing row comes back new.
func (s *SessionStore) lockRow(ctx context.Context, tx bun.Tx, ref session.Ref) (sessionRow, bool, error) {
	var rows []sessionRow
	q := tx.NewSelect().Model(&rows).Where(refWhere("s"), refArgs(ref)...)
	if s.db.dialect == DialectPostgres {
		q = q.For("UPDATE")
	}
	if err := q.Scan(ctx); err != nil && classify(err) != classNotFound {
		return sessionRow{}, false, wrapErr("lock session", err)
	}
	if len(rows) == 0 {
		return newSessionRow(ref), false, nil
	}
	return rows[0], true, nil
}

// saveRow inserts a new row or updates the locked one. Two first exchanges of one
// session racing on PostgreSQL collide on the key; WriteTx runs the loser again.
func saveRow(ctx context.Context, tx bun.Tx, row *sessionRow, found bool) error {
	var err error
	if found {
		_, err = tx.NewUpdate().Model(row).WherePK().Exec(ctx)
	} else {
		_, err = tx.NewInsert().Model(row).Exec(ctx)
	}
	return wrapErr("save session", err)
}

// trimSession deletes the messages beyond the maximum history (the oldest) and
// the exchange ids beyond MaxExchangeIDs turns, each only once the session can
// hold that many; it returns the messages deleted.
func trimSession(ctx context.Context, tx bun.Tx, ref session.Ref, count int64, maxHistory int) (int, error) {
	trimmed := int64(0)
	if count > int64(maxHistory) {
		res, err := tx.NewDelete().Model((*shortTermMessageRow)(nil)).Where(refWhere("stm"), refArgs(ref)...).
			Where("stm.seq <= ?", count-int64(maxHistory)).Exec(ctx)
		if err != nil {
			return 0, wrapErr("trim session messages", err)
		}
		trimmed, _ = res.RowsAffected()
	}
	if count <= 2*session.MaxExchangeIDs {
		return int(trimmed), nil
	}
	_, err := tx.NewDelete().Model((*exchangeRow)(nil)).Where(refWhere("ste"), refArgs(ref)...).
		Where("ste.seq <= ?", count-2*session.MaxExchangeIDs).Exec(ctx)
	return int(trimmed), wrapErr("trim session exchanges", err)
}

// deleteSessionParts removes a session's messages and exchange ids, and its row
// too when withRow.
func deleteSessionParts(ctx context.Context, tx bun.Tx, ref session.Ref, withRow bool) error {
	models := []struct {
		model any
		alias string
	}{{(*shortTermMessageRow)(nil), "stm"}, {(*exchangeRow)(nil), "ste"}}
	if withRow {
		models = append(models, struct {
			model any
			alias string
		}{(*sessionRow)(nil), "s"})
	}
	for _, m := range models {
		if _, err := tx.NewDelete().Model(m.model).Where(refWhere(m.alias), refArgs(ref)...).Exec(ctx); err != nil {
			return wrapErr("delete session", err)
		}
	}
	return nil
}

// sessionReadRow is the session row joined with one of its messages (none when
// the session holds no message).
type sessionReadRow struct {
	sessionRow
	MSeq        *int64     `bun:"m_seq"`
	MMessageID  string     `bun:"m_message_id"`
	MExchangeID string     `bun:"m_exchange_id"`
	MRole       string     `bun:"m_role"`
	MContent    string     `bun:"m_content"`
	MAt         *time.Time `bun:"m_at"`
}

// readView reads the row and its limit most recent messages in one statement, so
// the view is one snapshot: never a fold's new summary with the messages it
// removed, or messages the meta does not count yet.
func (s *SessionStore) readView(ctx context.Context, db bun.IDB, ref session.Ref, limit int) (session.View, sessionRow, error) {
	if limit <= 0 || limit > s.limits.MaxHistory {
		limit = s.limits.MaxHistory
	}
	query := `SELECT s.*, m.seq AS m_seq, m.message_id AS m_message_id, m.exchange_id AS m_exchange_id,
			m.role AS m_role, m.content AS m_content, m.at AS m_at
		FROM short_term_sessions AS s
		LEFT JOIN (SELECT stm.seq, stm.message_id, stm.exchange_id, stm.role, stm.content, stm.at
			FROM short_term_messages AS stm WHERE ` + refWhere("stm") + `
			ORDER BY stm.seq DESC LIMIT ?) AS m ON 1 = 1
		WHERE ` + refWhere("s") + `
		ORDER BY m.seq`
	args := append(append(refArgs(ref), limit), refArgs(ref)...)
	var rows []sessionReadRow
	if err := db.NewRaw(query, args...).Scan(ctx, &rows); err != nil && classify(err) != classNotFound {
		return session.View{}, sessionRow{}, wrapErr("read session", err)
	}
	now := s.now()
	if len(rows) == 0 || !rows[0].exists(now) {
		return session.View{}, sessionRow{}, fmt.Errorf("sqlstore: %s: %w", ref, ports.ErrNotFound)
	}
	row := rows[0].sessionRow
	v := session.View{Meta: row.meta(now), Summary: row.summary(now)}
	if row.metaLive(now) {
		for _, r := range rows {
			if r.MSeq == nil {
				continue
			}
			m := shortTermMessageRow{Seq: *r.MSeq, MessageID: r.MMessageID, ExchangeID: r.MExchangeID, Role: r.MRole, Content: r.MContent, At: *r.MAt}
			v.Messages = append(v.Messages, m.toMessage())
		}
	}
	return v, row, nil
}

// Session reads one session in one statement.
func (s *SessionStore) Session(ctx context.Context, ref session.Ref, limit int) (session.View, error) {
	v, _, err := s.readView(ctx, s.db.bun, ref, limit)
	return v, err
}

// Sessions lists the user's sessions with live meta, newest first, from the
// (tenant, user, last_active_at) index.
func (s *SessionStore) Sessions(ctx context.Context, scope memory.Scope, q ports.SessionQuery) ([]session.Meta, error) {
	limit := q.Limit
	if limit <= 0 || limit > ports.MaxSessionList {
		limit = ports.MaxSessionList
	}
	now := s.now()
	var rows []sessionRow
	sel := s.db.bun.NewSelect().Model(&rows).
		Where("s.tenant_id = ?", scope.Tenant).
		Where("s.user_id = ?", scope.User).
		Where("s.created_at IS NOT NULL").
		Where("s.meta_expires_at > ?", now)
	if q.SessionID != "" {
		sel = sel.Where("s.session_id = ?", q.SessionID)
	}
	err := sel.OrderExpr("s.last_active_at DESC, s.flow_id, s.session_id").Limit(int64(limit)).Scan(ctx)
	if err != nil && classify(err) != classNotFound {
		return nil, wrapErr("list sessions", err)
	}
	out := make([]session.Meta, len(rows))
	for i := range rows {
		out[i] = rows[i].meta(now)
	}
	return out, nil
}

// DeleteSession removes the session's rows of the three tables.
func (s *SessionStore) DeleteSession(ctx context.Context, ref session.Ref) error {
	return s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		row, found, err := s.lockRow(ctx, tx, ref)
		if err != nil {
			return err
		}
		if err := deleteSessionParts(ctx, tx, ref, true); err != nil {
			return err
		}
		if !found || !row.exists(s.now()) {
			return fmt.Errorf("sqlstore: %s: %w", ref, ports.ErrNotFound)
		}
		return nil
	})
}

// PurgeUser removes every session row of the user from the three tables.
func (s *SessionStore) PurgeUser(ctx context.Context, scope memory.Scope) (map[string]int64, error) {
	var counts map[string]int64
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		counts = map[string]int64{"sessions": 0, "session_messages": 0, "summaries": 0}
		summaries, err := tx.NewSelect().Model((*sessionRow)(nil)).
			Where("s.tenant_id = ? AND s.user_id = ? AND s.summary IS NOT NULL", scope.Tenant, scope.User).Count(ctx)
		if err != nil {
			return wrapErr("count summaries", err)
		}
		counts["summaries"] = int64(summaries)
		for _, m := range []struct {
			name  string
			model any
		}{{"session_messages", (*shortTermMessageRow)(nil)}, {"", (*exchangeRow)(nil)}, {"sessions", (*sessionRow)(nil)}} {
			res, err := tx.NewDelete().Model(m.model).Where("tenant_id = ? AND user_id = ?", scope.Tenant, scope.User).Exec(ctx)
			if err != nil {
				return wrapErr("purge sessions", err)
			}
			if m.name != "" {
				counts[m.name], _ = res.RowsAffected()
			}
		}
		return nil
	})
	return counts, err
}

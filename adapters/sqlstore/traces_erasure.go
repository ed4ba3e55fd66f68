package sqlstore

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/uptrace/bun"

	"engram/domain/memory"
)

// RedactTraces rewrites the user's traces that quote one of the items, in one
// transaction. A LIKE on the JSON body narrows the rows read (an id is written
// as "id":<its JSON string>); the decoded trace decides.
func (s *TraceStore) RedactTraces(ctx context.Context, scope memory.Scope, erased map[string]string) (int64, error) {
	if len(erased) == 0 {
		return 0, nil
	}
	var likes []string
	var args []any
	for id := range erased {
		quoted, _ := json.Marshal(id)
		likes = append(likes, "ct.body LIKE ?")
		args = append(args, s.containsPattern(`"id":`+string(quoted)))
	}
	var n int64
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		n = 0
		var rows []traceRow
		err := tx.NewSelect().Model(&rows).
			Where("ct.tenant_id = ?", scope.Tenant).Where("ct.user_id = ?", scope.User).
			Where("("+strings.Join(likes, " OR ")+")", args...).
			Scan(ctx)
		if err != nil && classify(err) != classNotFound {
			return wrapErr("redact traces: read them", err)
		}
		for i := range rows {
			t, err := rows[i].toTrace()
			if err != nil {
				return err
			}
			if !t.Redact(erased) {
				continue
			}
			row, err := toTraceRow(t)
			if err != nil {
				return err
			}
			if _, err := tx.NewUpdate().Model(&row).Column("body").WherePK().Exec(ctx); err != nil {
				return wrapErr("redact trace", err)
			}
			n++
		}
		return nil
	})
	return n, err
}

// DeleteSessionTraces deletes the user's traces of calls that named the session;
// a LIKE on the body narrows the rows read, the decoded trace decides.
func (s *TraceStore) DeleteSessionTraces(ctx context.Context, scope memory.Scope, sessionID, flowID string) (int64, error) {
	quoted, _ := json.Marshal(sessionID)
	var n int64
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		n = 0
		var rows []traceRow
		err := tx.NewSelect().Model(&rows).
			Where("ct.tenant_id = ?", scope.Tenant).Where("ct.user_id = ?", scope.User).
			Where("ct.body LIKE ?", s.containsPattern(`"session_id":`+string(quoted))).
			Scan(ctx)
		if err != nil && classify(err) != classNotFound {
			return wrapErr("delete session traces: read them", err)
		}
		var doomed []string
		for i := range rows {
			t, err := rows[i].toTrace()
			if err != nil {
				return err
			}
			if t.OfSession(sessionID, flowID) {
				doomed = append(doomed, t.ID)
			}
		}
		if len(doomed) == 0 {
			return nil
		}
		res, err := tx.NewDelete().TableExpr("context_traces").Where("id IN (?)", bun.List(doomed)).Exec(ctx)
		if err != nil {
			return wrapErr("delete session traces", err)
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return n, err
}

// containsPattern is a LIKE pattern for text anywhere in the body. PostgreSQL's
// LIKE takes a backslash as its escape, which JSON writes for itself.
func (s *TraceStore) containsPattern(text string) string {
	if s.db.dialect == DialectPostgres {
		text = strings.ReplaceAll(text, `\`, `\\`)
	}
	return "%" + text + "%"
}

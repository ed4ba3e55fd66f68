package sqlstore

import (
	"context"
	"time"

	"engram/domain/conversation"
	"engram/domain/memory"
)

// ConversationSummary counts the user's conversations and says when they last
// spoke, for the profile's total_conversations and last_conversation_at.
func (s *MessageStore) ConversationSummary(ctx context.Context, scope memory.Scope) (int, time.Time, error) {
	var row struct {
		Conversations int       `bun:"conversations"`
		Last          time.Time `bun:"last_at"` // bun reads SQLite's text times too; NULL is zero
	}
	err := s.db.bun.NewRaw(`SELECT count(DISTINCT conversation_id) AS conversations, max(created_at) AS last_at
		FROM conversation_messages WHERE tenant_id = ? AND user_id = ?`, scope.Tenant, scope.User).Scan(ctx, &row)
	if err != nil && classify(err) != classNotFound {
		return 0, time.Time{}, wrapErr("summarise conversations", err)
	}
	return row.Conversations, dbTime(row.Last), nil
}

// RecentUserMessages returns up to limit of the user's own messages said at or
// after since, newest first.
func (s *MessageStore) RecentUserMessages(ctx context.Context, scope memory.Scope, since time.Time, limit int) ([]conversation.Message, error) {
	var rows []messageRow
	err := s.db.bun.NewSelect().Model(&rows).
		Where("cm.tenant_id = ?", scope.Tenant).
		Where("cm.user_id = ?", scope.User).
		Where("cm.role = ?", string(conversation.RoleUser)).
		Where("cm.created_at >= ?", dbTime(since)).
		OrderExpr("cm.created_at DESC, cm.id DESC").
		Limit(int64(max(limit, 0))).
		Scan(ctx)
	if err != nil {
		return nil, wrapErr("recent user messages", err)
	}
	out := make([]conversation.Message, len(rows))
	for i := range rows {
		out[i] = rows[i].toMessage()
	}
	return out, nil
}

package sqlstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"engram/domain/conversation"
	"engram/domain/memory"
)

// The reads retrieval needs besides the ports (app/retrieval's MemoryReader and
// MessageReader), kept apart from the stores' port methods.

// MemoriesByID returns the user's memories with these ids, live or not.
func (s *MemoryStore) MemoriesByID(ctx context.Context, scope memory.Scope, ids []string) ([]memory.Memory, error) {
	out := make([]memory.Memory, 0, len(ids))
	for start := 0; start < len(ids); start += lexicalBatch {
		// By primary key alone: with the scope in the WHERE clause SQLite walks the
		// user's (tenant, user, key) index instead, every memory of the user. Ids are
		// unique across scopes, and the scope is checked on each row.
		var rows []memoryRow
		q := s.db.bun.NewSelect().Model(&rows).
			Where("m.id IN (?)", bun.List(ids[start:min(start+lexicalBatch, len(ids))]))
		err := visible(q, scope).Scan(ctx)
		if err != nil {
			return nil, wrapErr("memories by id", err)
		}
		for i := range rows {
			if rows[i].TenantID == scope.Tenant && rows[i].UserID == scope.User {
				out = append(out, memory.Restore(rows[i].toState()))
			}
		}
	}
	return out, nil
}

// TopMemories returns live memories, most important first, then newest change; it
// walks long_term_memories_top_idx backwards and stops at the limit.
func (s *MemoryStore) TopMemories(ctx context.Context, scope memory.Scope, types []memory.Type, now time.Time, limit int) ([]memory.Memory, error) {
	if limit <= 0 {
		return nil, nil
	}
	var rows []memoryRow
	q := s.db.bun.NewSelect().Model(&rows).
		Where("m.tenant_id = ?", scope.Tenant).
		Where("m.user_id = ?", scope.User)
	q = onlyLive(withoutNoise(visible(q, scope)), now)
	if len(types) > 0 {
		names := make([]string, len(types))
		for i, t := range types {
			names[i] = string(t)
		}
		q = q.Where("m.memory_type IN (?)", bun.List(names))
	}
	err := q.OrderExpr("m.importance DESC, m.updated_at DESC, m.id DESC").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, wrapErr("top memories", err)
	}
	out := make([]memory.Memory, len(rows))
	for i := range rows {
		out[i] = memory.Restore(rows[i].toState())
	}
	return out, nil
}

// MemoriesChangedSince pages through memories of every user by (updated_at, id).
func (s *MemoryStore) MemoriesChangedSince(ctx context.Context, afterAt time.Time, afterID string, limit int) ([]memory.Memory, error) {
	var rows []memoryRow
	at := dbTime(afterAt)
	err := s.db.bun.NewSelect().Model(&rows).
		WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("m.updated_at > ?", at).
				WhereGroup(" OR ", func(q *bun.SelectQuery) *bun.SelectQuery {
					return q.Where("m.updated_at = ?", at).Where("m.id > ?", afterID)
				})
		}).
		OrderExpr("m.updated_at ASC, m.id ASC").
		Limit(int64(limit)).
		Scan(ctx)
	if err != nil {
		return nil, wrapErr("memories changed since", err)
	}
	out := make([]memory.Memory, len(rows))
	for i := range rows {
		out[i] = memory.Restore(rows[i].toState())
	}
	return out, nil
}

// MessagesBySeq returns the user's messages with these arrival ids.
func (s *MessageStore) MessagesBySeq(ctx context.Context, scope memory.Scope, seqs []string) ([]conversation.Message, error) {
	out := make([]conversation.Message, 0, len(seqs))
	for start := 0; start < len(seqs); start += lexicalBatch {
		// By primary key alone, as MemoriesByID, with the scope checked on each row.
		var rows []messageRow
		q := s.db.bun.NewSelect().Model(&rows).
			Where("cm.id IN (?)", bun.List(seqs[start:min(start+lexicalBatch, len(seqs))]))
		err := visible(q, scope).Scan(ctx)
		if err != nil {
			return nil, wrapErr("messages by seq", err)
		}
		for i := range rows {
			if rows[i].TenantID == scope.Tenant && rows[i].UserID == scope.User {
				out = append(out, rows[i].toMessage())
			}
		}
	}
	return out, nil
}

// MessagesAfter walks conversation_messages by its primary key (arrival order).
func (s *MessageStore) MessagesAfter(ctx context.Context, after, upTo string, limit int) ([]conversation.Message, error) {
	var rows []messageRow
	err := s.db.bun.NewSelect().Model(&rows).
		Column("id", "tenant_id", "user_id", "message_id", "conversation_id", "role", "name", "content",
			"created_at", "received_at", "status").
		Where("cm.id > ?", after).
		Where("cm.id <= ?", upTo).
		OrderExpr("cm.id ASC").
		Limit(int64(limit)).
		Scan(ctx)
	if err != nil {
		return nil, wrapErr("messages after", err)
	}
	out := make([]conversation.Message, len(rows))
	for i := range rows {
		out[i] = rows[i].toMessage()
	}
	return out, nil
}

// StandingMemories returns up to limit live standing memories of the user
// (memory.IsStanding), in memory.CompareStanding's order. One statement of two
// reads that each stop at the limit: those of at least minImportance walk
// long_term_memories_top_idx backwards; pinned ones and constraints below it
// walk long_term_memories_standing_idx, which holds only them. Neither visits
// the user's other memories, however many there are.
func (s *MemoryStore) StandingMemories(ctx context.Context, scope memory.Scope, minImportance int, now time.Time, limit int) ([]memory.Memory, error) {
	if limit <= 0 {
		return nil, nil
	}
	read := func(where func(*bun.SelectQuery) *bun.SelectQuery) *bun.SelectQuery {
		q := s.db.bun.NewSelect().Model((*memoryRow)(nil)).
			Where("m.tenant_id = ?", scope.Tenant).
			Where("m.user_id = ?", scope.User)
		return onlyLive(withoutNoise(visible(where(q), scope)), now).
			OrderExpr("m.importance DESC, m.updated_at DESC, m.id DESC").Limit(int64(limit))
	}
	important := read(func(q *bun.SelectQuery) *bun.SelectQuery { return q.Where("m.importance >= ?", minImportance) })
	// Literal, as the index's predicate is written, so both planners match it.
	rules := read(func(q *bun.SelectQuery) *bun.SelectQuery {
		return q.Where("(m.pinned OR m.memory_type = 'constraint')").Where("m.importance < ?", minImportance)
	})
	var rows []memoryRow
	err := s.db.bun.NewRaw("SELECT * FROM (?) AS a UNION ALL SELECT * FROM (?) AS b ORDER BY importance DESC, updated_at DESC, id DESC LIMIT ?",
		important, rules, limit).Scan(ctx, &rows)
	if err != nil {
		return nil, wrapErr("standing memories", err)
	}
	out := make([]memory.Memory, len(rows))
	for i := range rows {
		out[i] = memory.Restore(rows[i].toState())
	}
	return out, nil
}

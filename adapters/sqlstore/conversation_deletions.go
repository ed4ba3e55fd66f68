package sqlstore

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
)

var _ ports.ConversationDeleter = (*MessageStore)(nil)

// conversationLockClass is the first key of the conversations' advisory locks on
// PostgreSQL ("conv"): Ingest takes a conversation's lock shared, its deletion
// exclusive, so a message is either stored before the deletion (and deleted by
// it) or checked against its record (and refused).
const conversationLockClass = 0x636f6e76

func conversationLockKey(scope memory.Scope, conversationID string) int32 {
	h := fnv.New32a()
	for _, part := range []string{scope.Tenant, scope.User, conversationID} {
		_, _ = h.Write([]byte(part))
		_, _ = h.Write([]byte{0})
	}
	return int32(h.Sum32())
}

// lockConversations takes the conversations' advisory locks for the transaction
// on PostgreSQL, in key order so that two transactions never wait on each other.
// No-op on SQLite, whose single writer serialises them anyway.
func (db *DB) lockConversations(ctx context.Context, tx bun.Tx, scope memory.Scope, ids []string, exclusive bool) error {
	if db.dialect != DialectPostgres || len(ids) == 0 {
		return nil
	}
	keys := make([]int32, 0, len(ids))
	for _, id := range ids {
		keys = append(keys, conversationLockKey(scope, id))
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	fn := "pg_advisory_xact_lock_shared"
	if exclusive {
		fn = "pg_advisory_xact_lock"
	}
	for _, k := range keys {
		if _, err := tx.ExecContext(ctx, "SELECT "+fn+"(?, ?)", conversationLockClass, k); err != nil {
			return wrapErr("lock conversation", err)
		}
	}
	return nil
}

// refuseDeleted returns a *ports.ConversationDeletedError for the first new
// message whose conversation was deleted at or after the message was created.
func (db *DB) refuseDeleted(ctx context.Context, tx bun.Tx, scope memory.Scope, msgs []conversation.Message) error {
	var convs []string
	for _, m := range msgs {
		if !slices.Contains(convs, m.ConversationID) {
			convs = append(convs, m.ConversationID)
		}
	}
	if err := db.lockConversations(ctx, tx, scope, convs, false); err != nil {
		return err
	}
	var rows []struct {
		ConversationID string    `bun:"conversation_id"`
		DeletedAt      time.Time `bun:"deleted_at"`
	}
	err := tx.NewRaw(`SELECT conversation_id, deleted_at FROM conversation_deletions
		WHERE tenant_id = ? AND user_id = ? AND conversation_id IN (?)`, scope.Tenant, scope.User, bun.List(convs)).Scan(ctx, &rows)
	if err != nil && classify(err) != classNotFound {
		return wrapErr("read conversation deletions", err)
	}
	if len(rows) == 0 {
		return nil
	}
	deleted := make(map[string]time.Time, len(rows))
	for _, r := range rows {
		deleted[r.ConversationID] = dbTime(r.DeletedAt)
	}
	for _, m := range msgs {
		if at, ok := deleted[m.ConversationID]; ok && !dbTime(m.CreatedAt).After(at) {
			return &ports.ConversationDeletedError{ConversationID: m.ConversationID, DeletedAt: at}
		}
	}
	return nil
}

// DeleteConversation deletes the conversation's messages and embeddings and
// records the deletion, in one transaction.
func (s *MessageStore) DeleteConversation(ctx context.Context, scope memory.Scope, conversationID string, now time.Time) ([]conversation.Message, error) {
	var was []conversation.Message
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		was = nil
		if err := s.db.guardWrite(ctx, tx, scope); err != nil {
			return err
		}
		if err := s.db.lockConversations(ctx, tx, scope, []string{conversationID}, true); err != nil {
			return err
		}
		claims, err := s.unclaimedConversation(ctx, tx, scope, conversationID, now)
		if err != nil {
			return err
		}
		_, err = tx.NewRaw(`INSERT INTO conversation_deletions (tenant_id, user_id, conversation_id, deleted_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (tenant_id, user_id, conversation_id) DO UPDATE SET deleted_at = EXCLUDED.deleted_at`,
			scope.Tenant, scope.User, conversationID, dbTime(now)).Exec(ctx)
		if err != nil {
			return wrapErr("record conversation deletion", err)
		}
		if len(claims) == 0 {
			return nil
		}
		was, err = deleteConversationRows(ctx, tx, scope, conversationID, idsOf(claims))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("sqlstore: delete conversation %q: %w", conversationID, err)
	}
	return was, nil
}

// unclaimedConversation reads the claims on the conversation's messages (locked
// on PostgreSQL), one row per message, and is errBusy while a worker or an
// indexer holds a live one: it could write back what the deletion removes.
func (s *MessageStore) unclaimedConversation(ctx context.Context, tx bun.Tx, scope memory.Scope, conversationID string, now time.Time) ([]claimRow, error) {
	lock := ""
	if s.db.dialect == DialectPostgres {
		lock = " FOR UPDATE"
	}
	var claims []claimRow
	err := tx.NewRaw(`SELECT id, claimed_by, claim_until, vector_claimed_by, vector_claim_until FROM conversation_messages
		WHERE tenant_id = ? AND user_id = ? AND conversation_id = ?`+lock, scope.Tenant, scope.User, conversationID).Scan(ctx, &claims)
	if err != nil && classify(err) != classNotFound {
		return nil, wrapErr("delete conversation: read its claims", err)
	}
	for _, c := range claims {
		if c.busy(now) {
			return nil, errBusy("message", c.ID)
		}
	}
	return claims, nil
}

// deleteConversationRows deletes the conversation's messages (ids) and their
// embeddings in batches, and returns the messages as they were.
func deleteConversationRows(ctx context.Context, tx bun.Tx, scope memory.Scope, conversationID string, ids []string) ([]conversation.Message, error) {
	var rows []messageRow
	err := tx.NewSelect().Model(&rows).
		Where("cm.tenant_id = ?", scope.Tenant).
		Where("cm.user_id = ?", scope.User).
		Where("cm.conversation_id = ?", conversationID).
		Scan(ctx)
	if err != nil {
		return nil, wrapErr("delete conversation: read its messages", err)
	}
	for _, batch := range slices.Collect(slices.Chunk(ids, purgeBatch)) {
		if _, err := tx.NewRaw("DELETE FROM message_embeddings WHERE id IN (?)", bun.List(batch)).Exec(ctx); err != nil {
			return nil, wrapErr("delete conversation embeddings", err)
		}
		if _, err := tx.NewRaw("DELETE FROM conversation_messages WHERE id IN (?)", bun.List(batch)).Exec(ctx); err != nil {
			return nil, wrapErr("delete conversation messages", err)
		}
	}
	var was []conversation.Message
	for i := range rows {
		was = append(was, rows[i].toMessage())
	}
	return was, nil
}

// ConversationEvents reads memory_events by their source conversation.
func (s *MessageStore) ConversationEvents(ctx context.Context, scope memory.Scope, conversationID string) ([]memory.Event, error) {
	return s.db.eventsWhere(ctx, scope, "conversation_id", "events of conversation", conversationID)
}

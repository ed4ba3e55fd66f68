package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"engram/domain/agentconv"
	"engram/domain/memory"
	"engram/ports"
)

// AgentConversationStore keeps agent conversations in agent_conversations and
// their items, raw as sent, in agent_conversation_items
// (ports.AgentConversationStore).
type AgentConversationStore struct {
	db *DB
}

var _ ports.AgentConversationStore = (*AgentConversationStore)(nil)

// NewAgentConversationStore serves ports.AgentConversationStore from db.
func NewAgentConversationStore(db *DB) *AgentConversationStore {
	return &AgentConversationStore{db: db}
}

type agentConversationRow struct {
	bun.BaseModel `bun:"table:agent_conversations,alias:ac"`

	ID        string    `bun:"id,pk"`
	TenantID  string    `bun:"tenant_id"`
	UserID    string    `bun:"user_id"`
	CreatedAt time.Time `bun:"created_at"`
	Metadata  string    `bun:"metadata"`
}

type agentItemRow struct {
	bun.BaseModel `bun:"table:agent_conversation_items,alias:ai"`

	ConversationID string `bun:"conversation_id,pk"`
	Seq            int64  `bun:"seq,pk"`
	ID             string `bun:"id"`
	TenantID       string `bun:"tenant_id"`
	UserID         string `bun:"user_id"`
	Type           string `bun:"type"`
	Role           string `bun:"role"`
	Text           string `bun:"text"`
	Raw            string `bun:"raw"`
}

func toAgentItemRows(scope memory.Scope, conversationID string, firstSeq int64, items []agentconv.Item) []agentItemRow {
	rows := make([]agentItemRow, len(items))
	for i, it := range items {
		rows[i] = agentItemRow{ConversationID: conversationID, Seq: firstSeq + int64(i), ID: it.ID, TenantID: scope.Tenant,
			UserID: scope.User, Type: it.Type, Role: string(it.Role), Text: it.Text, Raw: string(it.Raw)}
	}
	return rows
}

func (r agentItemRow) toItem() agentconv.Item {
	return agentconv.Item{ID: r.ID, Seq: r.Seq, Type: r.Type, Role: agentconv.Role(r.Role), Text: r.Text, Raw: []byte(r.Raw)}
}

// Create stores the conversation and its first items, unless the user is being erased.
func (s *AgentConversationStore) Create(ctx context.Context, c agentconv.Conversation, items []agentconv.Item) error {
	return s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := s.db.guardWrite(ctx, tx, c.Scope); err != nil {
			return err
		}
		metadata, err := json.Marshal(c.Metadata)
		if err != nil {
			return fmt.Errorf("sqlstore: conversation %s metadata: %w", c.ID, err)
		}
		row := agentConversationRow{ID: c.ID, TenantID: c.Scope.Tenant, UserID: c.Scope.User, CreatedAt: dbTime(c.CreatedAt),
			Metadata: string(metadata)}
		if _, err := tx.NewInsert().Model(&row).Exec(ctx); err != nil {
			return wrapErr("insert agent conversation", err)
		}
		return insertAgentItems(ctx, tx, toAgentItemRows(c.Scope, c.ID, 1, items))
	})
}

func insertAgentItems(ctx context.Context, tx bun.Tx, rows []agentItemRow) error {
	if len(rows) == 0 {
		return nil
	}
	_, err := tx.NewInsert().Model(&rows).Exec(ctx)
	return wrapErr("insert agent conversation items", err)
}

// Conversation returns one of the user's conversations.
func (s *AgentConversationStore) Conversation(ctx context.Context, scope memory.Scope, id string) (agentconv.Conversation, error) {
	return conversationOf(ctx, s.db.bun, scope, id)
}

func conversationOf(ctx context.Context, db bun.IDB, scope memory.Scope, id string) (agentconv.Conversation, error) {
	var row agentConversationRow
	err := db.NewSelect().Model(&row).Where("ac.id = ?", id).
		Where("ac.tenant_id = ?", scope.Tenant).Where("ac.user_id = ?", scope.User).Scan(ctx)
	if err != nil {
		return agentconv.Conversation{}, wrapErr("get agent conversation", err)
	}
	metadata := map[string]string{}
	if err := json.Unmarshal([]byte(row.Metadata), &metadata); err != nil {
		return agentconv.Conversation{}, fmt.Errorf("sqlstore: conversation %s metadata: %w", row.ID, err)
	}
	return agentconv.Conversation{ID: row.ID, Scope: scope, CreatedAt: dbTime(row.CreatedAt), Metadata: metadata}, nil
}

// SetMetadata replaces the conversation's metadata.
func (s *AgentConversationStore) SetMetadata(ctx context.Context, scope memory.Scope, id string, metadata map[string]string) (agentconv.Conversation, error) {
	encoded, err := json.Marshal(metadata)
	if err != nil {
		return agentconv.Conversation{}, fmt.Errorf("sqlstore: conversation %s metadata: %w", id, err)
	}
	var out agentconv.Conversation
	err = s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().TableExpr("agent_conversations").Set("metadata = ?", string(encoded)).Where("id = ?", id).
			Where("tenant_id = ?", scope.Tenant).Where("user_id = ?", scope.User).Exec(ctx)
		if err != nil {
			return wrapErr("update agent conversation", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ports.NotFound("conversation", id)
		}
		out, err = conversationOf(ctx, tx, scope, id)
		return err
	})
	return out, err
}

// Delete removes the conversation and its items in one transaction.
func (s *AgentConversationStore) Delete(ctx context.Context, scope memory.Scope, id string) error {
	return s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := conversationOf(ctx, tx, scope, id); err != nil {
			return err
		}
		if _, err := tx.NewDelete().TableExpr("agent_conversation_items").Where("conversation_id = ?", id).Exec(ctx); err != nil {
			return wrapErr("delete agent conversation items", err)
		}
		_, err := tx.NewDelete().TableExpr("agent_conversations").Where("id = ?", id).Exec(ctx)
		return wrapErr("delete agent conversation", err)
	})
}

// Append adds the items after the last one. The conversation's row is updated
// first, so that two appends to one conversation take their turns.
func (s *AgentConversationStore) Append(ctx context.Context, scope memory.Scope, conversationID string, items []agentconv.Item) ([]agentconv.Item, error) {
	var out []agentconv.Item
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := s.db.guardWrite(ctx, tx, scope); err != nil {
			return err
		}
		res, err := tx.NewUpdate().TableExpr("agent_conversations").Set("metadata = metadata").Where("id = ?", conversationID).
			Where("tenant_id = ?", scope.Tenant).Where("user_id = ?", scope.User).Exec(ctx)
		if err != nil {
			return wrapErr("lock agent conversation", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ports.NotFound("conversation", conversationID)
		}
		var last int64
		if err := tx.NewSelect().TableExpr("agent_conversation_items").ColumnExpr("COALESCE(MAX(seq), 0)").
			Where("conversation_id = ?", conversationID).Scan(ctx, &last); err != nil {
			return wrapErr("last agent conversation item", err)
		}
		rows := toAgentItemRows(scope, conversationID, last+1, items)
		if err := insertAgentItems(ctx, tx, rows); err != nil {
			return err
		}
		out = make([]agentconv.Item, len(rows))
		for i, r := range rows {
			out[i] = r.toItem()
		}
		return nil
	})
	return out, err
}

// Items lists a page of the conversation's items, reading one more than the
// page to say whether more follow.
func (s *AgentConversationStore) Items(ctx context.Context, scope memory.Scope, conversationID string, q ports.ItemQuery) ([]agentconv.Item, bool, error) {
	if _, err := conversationOf(ctx, s.db.bun, scope, conversationID); err != nil {
		return nil, false, err
	}
	sel := s.db.bun.NewSelect().Model((*agentItemRow)(nil)).Where("ai.conversation_id = ?", conversationID)
	if q.After != "" {
		after, err := s.Item(ctx, scope, conversationID, q.After)
		if err != nil {
			return nil, false, err
		}
		if q.Descending {
			sel = sel.Where("ai.seq < ?", after.Seq)
		} else {
			sel = sel.Where("ai.seq > ?", after.Seq)
		}
	}
	if q.Descending {
		sel = sel.OrderExpr("ai.seq DESC")
	} else {
		sel = sel.OrderExpr("ai.seq ASC")
	}
	if q.Limit > 0 {
		sel = sel.Limit(int64(q.Limit + 1))
	}
	var rows []agentItemRow
	if err := sel.Scan(ctx, &rows); err != nil {
		return nil, false, wrapErr("list agent conversation items", err)
	}
	more := q.Limit > 0 && len(rows) > q.Limit
	if more {
		rows = rows[:q.Limit]
	}
	items := make([]agentconv.Item, len(rows))
	for i, r := range rows {
		items[i] = r.toItem()
	}
	return items, more, nil
}

// Item returns one item of one of the user's conversations.
func (s *AgentConversationStore) Item(ctx context.Context, scope memory.Scope, conversationID, itemID string) (agentconv.Item, error) {
	var row agentItemRow
	err := s.db.bun.NewSelect().Model(&row).Where("ai.conversation_id = ?", conversationID).Where("ai.id = ?", itemID).
		Where("ai.tenant_id = ?", scope.Tenant).Where("ai.user_id = ?", scope.User).Scan(ctx)
	if err != nil {
		return agentconv.Item{}, wrapErr("get agent conversation item", err)
	}
	return row.toItem(), nil
}

// DeleteItem removes one item.
func (s *AgentConversationStore) DeleteItem(ctx context.Context, scope memory.Scope, conversationID, itemID string) error {
	return s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewDelete().TableExpr("agent_conversation_items").Where("conversation_id = ?", conversationID).
			Where("id = ?", itemID).Where("tenant_id = ?", scope.Tenant).Where("user_id = ?", scope.User).Exec(ctx)
		if err != nil {
			return wrapErr("delete agent conversation item", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ports.NotFound("item", itemID)
		}
		return nil
	})
}

// PurgeUser removes the user's conversations and their items (erasure).
func (s *AgentConversationStore) PurgeUser(ctx context.Context, scope memory.Scope) (map[string]int64, error) {
	return purgeScope(ctx, s.db, scope, map[string]string{
		"agent_conversations": "agent_conversations", "agent_conversation_items": "agent_conversation_items",
	})
}

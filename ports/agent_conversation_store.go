package ports

import (
	"context"

	"engram/domain/agentconv"
	"engram/domain/memory"
)

// AgentConversationStore keeps the conversations agents hold through the OpenAI
// Conversations API and their items, each item byte for byte as sent. Every
// method is scoped to the user: another user's conversation is ErrNotFound.
type AgentConversationStore interface {
	// Create stores a new conversation with its first items (Seq 1, 2…).
	Create(ctx context.Context, c agentconv.Conversation, items []agentconv.Item) error
	// Conversation returns one conversation; ErrNotFound when the user has none
	// of that id.
	Conversation(ctx context.Context, scope memory.Scope, id string) (agentconv.Conversation, error)
	// SetMetadata replaces the conversation's metadata and returns the
	// conversation; ErrNotFound when the user has none of that id.
	SetMetadata(ctx context.Context, scope memory.Scope, id string, metadata map[string]string) (agentconv.Conversation, error)
	// Delete removes the conversation and its items; ErrNotFound when the user has
	// none of that id.
	Delete(ctx context.Context, scope memory.Scope, id string) error
	// Append adds items after the conversation's last, in one transaction, and
	// returns them with their Seq. ErrNotFound when the user has no such
	// conversation; ErrConflict when an item id is already in it.
	Append(ctx context.Context, scope memory.Scope, conversationID string, items []agentconv.Item) ([]agentconv.Item, error)
	// Items lists the conversation's items in q.Order from after q.After (an item
	// id; empty: from the first), at most q.Limit, and whether more follow;
	// q.Limit <= 0 lists every item. ErrNotFound when the user has no such
	// conversation or q.After is no item of it.
	Items(ctx context.Context, scope memory.Scope, conversationID string, q ItemQuery) (items []agentconv.Item, more bool, err error)
	// Item returns one item; ErrNotFound when the conversation has no such item.
	Item(ctx context.Context, scope memory.Scope, conversationID, itemID string) (agentconv.Item, error)
	// DeleteItem removes one item; ErrNotFound when the conversation has no such item.
	DeleteItem(ctx context.Context, scope memory.Scope, conversationID, itemID string) error
}

// ItemQuery is a page of items.
type ItemQuery struct {
	Limit      int
	After      string
	Descending bool
}

package ports

import (
	"context"
	"fmt"
	"time"

	"engram/domain/conversation"
	"engram/domain/memory"
)

// ConversationDeleter erases every stored message of one conversation (the
// messages of a deleted session, whose conversation id is the session id).
type ConversationDeleter interface {
	// DeleteConversation deletes the conversation's messages with their
	// embeddings, and records that the conversation was deleted at now, in one
	// transaction: from then on Ingest refuses a message of it created at or
	// before now with a *ConversationDeletedError (a turn queued before the delete
	// and relayed after it). It returns the messages as they were (none: nothing
	// was stored, and that is no error). ErrConflict while a worker holds a live
	// claim on one of them: try again shortly.
	DeleteConversation(ctx context.Context, scope memory.Scope, conversationID string, now time.Time) ([]conversation.Message, error)

	// ConversationEvents returns the memory events whose source is a message of
	// the conversation, oldest first: what the deleted messages taught.
	ConversationEvents(ctx context.Context, scope memory.Scope, conversationID string) ([]memory.Event, error)
}

// ConversationDeletedError refuses a message of a conversation deleted after the
// message was created: it was on its way (a queued turn) when its chat was
// deleted, and storing it would bring the chat back. A message created after the
// deletion starts the conversation anew. It wraps ErrConflict.
type ConversationDeletedError struct {
	ConversationID string
	DeletedAt      time.Time
}

func (e *ConversationDeletedError) Error() string {
	return fmt.Sprintf("conversation_id %q was deleted at %s; a message of it created before then is not stored again "+
		"(send it with a later created_at to start the conversation anew)", e.ConversationID, e.DeletedAt.UTC().Format(time.RFC3339Nano))
}

func (e *ConversationDeletedError) Unwrap() error { return ErrConflict }

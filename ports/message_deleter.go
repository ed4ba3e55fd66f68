package ports

import (
	"context"
	"time"

	"engram/domain/conversation"
	"engram/domain/memory"
)

// MessageDeleter erases one conversation message (DELETE …/messages/{id}).
type MessageDeleter interface {
	// DeleteMessage deletes the message and its own embedding, and marks DIRTY
	// the messages within neighbours of it on each side in conversation order
	// (their vectors mix its embedding in, so the indexer rebuilds them without
	// it), in one transaction; it returns the message as it was. ErrNotFound if
	// the scope has no such message; ErrConflict while a worker holds a live
	// claim on it (an extraction in flight could still learn from it) or on its
	// conversation's vectors: try again shortly.
	DeleteMessage(ctx context.Context, scope memory.Scope, messageID string, neighbours int, now time.Time) (conversation.Message, error)
}

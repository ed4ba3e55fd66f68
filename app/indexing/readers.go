package indexing

import (
	"context"
	"time"

	"engram/domain/conversation"
	"engram/domain/memory"
)

// The reads below serve only the lexical indexer, so their interfaces live here
// rather than in ports (docs/DEVELOPING.md). adapters/sqlstore implements them
// on its memory and message stores.

// ChangedMemories is the lexical repair pass's scan of the memory truth.
type ChangedMemories interface {
	// MemoriesChangedSince returns memories of every user whose updated_at is at or
	// after since, ordered by (updated_at, id), after the cursor (afterAt,
	// afterID), up to limit.
	MemoriesChangedSince(ctx context.Context, afterAt time.Time, afterID string, limit int) ([]memory.Memory, error)
}

// MessageFeed is the lexical message pass's scan of the stored messages.
type MessageFeed interface {
	// MessagesAfter returns messages of every user whose Seq is greater than after
	// and at most upTo, in Seq order, up to limit.
	MessagesAfter(ctx context.Context, after, upTo string, limit int) ([]conversation.Message, error)
}

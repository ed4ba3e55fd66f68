package ports

import (
	"context"
	"time"

	"engram/domain/conversation"
	"engram/domain/memory"
)

// MessageLister pages through a user's stored messages (GET /v1/users/{user}/messages).
type MessageLister interface {
	// ListMessages returns up to q.Limit messages of the scope that pass the
	// filters, oldest first (by CreatedAt, then Seq), strictly after the cursor
	// when q.After is set; More says whether another page follows.
	ListMessages(ctx context.Context, scope memory.Scope, q MessageQuery) (MessagePage, error)
}

// MessageQuery filters a message listing.
type MessageQuery struct {
	ConversationID string              // empty: every conversation
	Status         conversation.Status // empty: every status
	Since, Until   time.Time           // when said: since inclusive, until exclusive; zero: unbounded
	After          *MessageCursor      // nil: from the first
	Limit          int                 // 1..1000
}

// MessageCursor is the position of the last message of a page.
type MessageCursor struct {
	CreatedAt time.Time
	Seq       string
}

// MessagePage is one page of a listing.
type MessagePage struct {
	Items []conversation.Message
	More  bool
}

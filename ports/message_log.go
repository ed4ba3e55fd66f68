package ports

import (
	"context"
	"fmt"

	"engram/domain/conversation"
	"engram/domain/memory"
)

// MessageLog keeps the messages of conversations (the extraction channel's input
// and the episodic memory): ingestion writes them, a client reads one back with
// the memory events it caused.
type MessageLog interface {
	// Ingest stores the messages of one scope in one transaction. Messages whose id
	// is already stored are not written again: the stored one is returned with
	// Created false, its status and debounce untouched. A repeated id whose stored
	// message says something else fails the whole call with a
	// *MessageConflictError, and nothing is stored. For each conversation that got
	// a new user message, the conversation's unclaimed PENDING messages are pushed
	// to the latest ProcessAfter among its new ones, so they become due together,
	// unless the store was given conversation.Batching limits: then they are due at
	// the earliest of that, MaxWait after the oldest of them was received, and the
	// newest one's receipt once MaxMessages wait (conversation.Batching.Due). The
	// results follow the input's order; a created message carries the deadline
	// its conversation got. A message of a conversation deleted at or after its
	// CreatedAt (see ConversationDeleter) fails the call with a
	// *ConversationDeletedError, and nothing is stored.
	Ingest(ctx context.Context, scope memory.Scope, msgs []conversation.Message) ([]Ingested, error)

	// Message returns one message of the scope. ErrNotFound if absent.
	Message(ctx context.Context, scope memory.Scope, messageID string) (conversation.Message, error)

	// CausedEvents returns the memory events whose source is this message, oldest
	// first.
	CausedEvents(ctx context.Context, scope memory.Scope, messageID string) ([]memory.Event, error)
}

// Ingested is one message after Ingest.
type Ingested struct {
	Message conversation.Message
	Created bool // false: the id was already stored, Message is the stored one
}

// MessageConflictError is a message id repeated with other content: a client bug
// (ids reused) rather than a retry, so the message is refused instead of silently
// dropped. It wraps ErrConflict.
type MessageConflictError struct {
	MessageID string
}

func (e *MessageConflictError) Error() string {
	return fmt.Sprintf("message_id %q is already stored with a different conversation, role, name or content", e.MessageID)
}

func (e *MessageConflictError) Unwrap() error { return ErrConflict }

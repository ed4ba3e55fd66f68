package ports

import (
	"context"
	"fmt"
	"time"

	"engram/domain/conversation"
	"engram/domain/memory"
)

// MessageStore keeps the messages of conversations (the extraction channel's input
// and the episodic memory) and hands due user messages to extraction workers.
//
// Claims: a worker claims whole conversations' due messages for a lease. Until the
// lease ends no other worker is given them; a worker that dies leaves its claims to
// lapse, and the next rescan hands them to another. Results are stored only while
// the claim is still the worker's, so a stale worker never overwrites another's.
type MessageStore interface {
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

	// ConversationBefore returns up to limit messages of the conversation that come
	// before m (by CreatedAt, then Seq), the most recent ones, oldest first.
	ConversationBefore(ctx context.Context, m conversation.Message, limit int) ([]conversation.Message, error)

	// ClaimDue claims the due messages of up to c.MaxConversations conversations
	// (conversations, however many messages each has) for c.Worker until
	// c.Now+c.Lease and returns them, each conversation's messages together and in
	// conversation order, the earliest deadline first. A user has at most one
	// conversation under a live claim, whichever worker holds it: a claim skips
	// users with one and takes one conversation per user, so one user's memories
	// are written by one run at a time, in the order their conversations fell due.
	// See Claim for what is due.
	ClaimDue(ctx context.Context, c Claim) ([]conversation.Message, error)

	// Finish stores the outcome (status, skip reason, attempts, error, process
	// after, processed at) of messages the worker claimed and releases them. A
	// message no longer claimed by the worker is left alone; the result counts
	// the messages stored.
	Finish(ctx context.Context, worker string, msgs []conversation.Message) (int, error)

	// Release gives claimed messages back unchanged (a worker shutting down), so
	// they need not wait for the lease. Messages not claimed by worker are left alone.
	Release(ctx context.Context, worker string, msgs []conversation.Message) error

	// CausedEvents returns the memory events whose source is this message, oldest
	// first.
	CausedEvents(ctx context.Context, scope memory.Scope, messageID string) ([]memory.Event, error)

	// MessageStats counts messages across tenants for metrics.
	MessageStats(ctx context.Context, now time.Time) (MessageStats, error)
}

// Ingested is one message after Ingest.
type Ingested struct {
	Message conversation.Message
	Created bool // false: the id was already stored, Message is the stored one
}

// Claim says what a worker asks for.
//
// Without Recover, due means PENDING, unclaimed, and ProcessAfter reached: fresh
// traffic after its debounce (the worker's frequent poll). With Recover, due also
// takes FAILED messages whose backoff has passed and messages whose claim lapsed
// (a dead worker's): the periodic rescan.
type Claim struct {
	Worker           string
	Now              time.Time
	Lease            time.Duration
	MaxConversations int
	Recover          bool
}

// MessageStats is what the message metrics show.
type MessageStats struct {
	ByStatus      map[conversation.Status]int64
	OldestPending time.Time // ReceivedAt of the oldest PENDING message; zero if none
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

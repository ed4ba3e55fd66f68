package ports

import (
	"context"
	"time"

	"engram/domain/conversation"
	"engram/domain/memory"
)

// VectorQueue is the indexer's side of the truth store: it hands out the
// memories and messages whose vectors must be built again, and stores the outcome.
//
// Claims: an indexer claims items for a lease. Until the lease ends no other
// indexer is given them, so several indexers share the work without doing it
// twice; an indexer that dies leaves its claims to lapse. Outcomes are stored only
// while the claim is still the indexer's. Messages are claimed by whole
// conversations (no two indexers hold messages of one conversation at once),
// because a message's vector mixes in its neighbours'.
//
// Due means: vector status DIRTY, or FAILED with its retry time reached, and not
// claimed by a live lease.
type VectorQueue interface {
	// ClaimMemories claims up to c.Limit due memories, oldest change first.
	ClaimMemories(ctx context.Context, c VectorClaim) ([]ClaimedMemory, error)
	// FinishMemories stores outcomes of memories the worker claimed and
	// releases them. An outcome is stored only if the memory still has the claimed
	// version: a memory edited meanwhile stays DIRTY (its claim is released). It
	// returns how many outcomes were stored.
	FinishMemories(ctx context.Context, worker string, outcomes []MemoryVectorOutcome) (int, error)

	// ClaimMessages claims the due messages of whole conversations, about
	// c.Limit messages in all, each conversation's messages together and in order.
	ClaimMessages(ctx context.Context, c VectorClaim) ([]MessageVector, error)
	// MessageWindow returns the messages of first's conversation from margin
	// messages before first to margin messages after last (first and last
	// included), in conversation order, with their stored embeddings.
	MessageWindow(ctx context.Context, first, last conversation.Message, margin int) ([]MessageVector, error)
	// FinishMessages stores outcomes (and raw embeddings) of messages the
	// worker claimed and releases them; it returns how many were stored.
	FinishMessages(ctx context.Context, worker string, outcomes []MessageVectorOutcome) (int, error)

	// Release gives back every claim of the worker (shutting down).
	Release(ctx context.Context, worker string) error
}

// VectorClaim says what an indexer asks for.
type VectorClaim struct {
	Worker string
	Now    time.Time
	Lease  time.Duration
	Limit  int
}

// ClaimedMemory is a memory handed to an indexer.
type ClaimedMemory struct {
	Memory memory.Memory
	// Attempts counts the failed syncs since the last success (backoff).
	Attempts int
	// DirtySince is when the memory started waiting: its last change, or the
	// reindex that queued it.
	DirtySince time.Time
}

// MemoryVectorOutcome is the result of syncing one claimed memory.
type MemoryVectorOutcome struct {
	ID      string
	Version int64 // the version that was claimed
	// Vector is the new bookkeeping: SYNCED with model, version and text hash (an
	// empty hash when the vector was removed), or FAILED with the error.
	Vector memory.VectorState
	// Attempts and NextAttempt schedule the retry of a FAILED sync.
	Attempts    int
	NextAttempt time.Time
}

// MessageVector is a message with its vector bookkeeping.
type MessageVector struct {
	Message conversation.Message
	Status  memory.VectorStatus
	Model   string
	// TextHash is the sha256 of the text Embedding was made from.
	TextHash string
	// Embedding is the message's own embedding (before its neighbours are mixed
	// in); nil when it has none yet.
	Embedding  []float32
	Attempts   int
	DirtySince time.Time
}

// MessageVectorOutcome is the result of syncing one claimed message.
type MessageVectorOutcome struct {
	Seq    string // conversation.Message.Seq
	Status memory.VectorStatus
	Error  string
	// Model, TextHash and Embedding are stored whenever Embedding is not nil, even
	// on a failure after embedding, so the retry need not embed again.
	Model       string
	TextHash    string
	Embedding   []float32
	SyncedAt    time.Time
	Attempts    int
	NextAttempt time.Time
}

// VectorBacklog is what the indexer has yet to do.
type VectorBacklog struct {
	DirtyMemories, FailedMemories int64
	DirtyMessages, FailedMessages int64
	// OldestDirty is when the longest-waiting DIRTY or FAILED item started
	// waiting; zero when nothing waits.
	OldestDirty time.Time
}

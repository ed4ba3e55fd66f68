// Package messages holds the use cases of conversation ingestion (extraction's input): post
// one message, post a batch, and read a message back with its extraction status and
// the memory events it caused. Posting only stores: extraction runs later, in the
// worker role, so an agent is never kept waiting. It depends on domain and ports only.
package messages

import (
	"time"

	"engram/domain/secret"
	"engram/ports"
)

// MaxBatch is the most messages one batch may hold.
const MaxBatch = 500

// Notifier is told when newly stored user messages become due, so a worker in the
// same process can wake at that time instead of waiting for its next poll.
type Notifier interface {
	Notify(due time.Time)
}

// Options shape ingestion.
type Options struct {
	// Debounce is how long after a conversation's latest user message extraction
	// waits (LONG_TERM_MEMORY_DEBOUNCE_SEC).
	Debounce time.Duration
	// Notifier wakes an in-process worker; nil: none (the worker polls).
	Notifier Notifier
	// Secrets is what a secret in a message becomes before it is stored
	// (ENGRAM_SECRETS); the zero value stores it as given.
	Secrets secret.Mode
}

// Service runs the ingestion use cases.
type Service struct {
	store ports.MessageLog
	clock ports.Clock
	ids   ports.IDs
	opts  Options
}

// New builds the service.
func New(store ports.MessageLog, clock ports.Clock, ids ports.IDs, opts Options) *Service {
	return &Service{store: store, clock: clock, ids: ids, opts: opts}
}

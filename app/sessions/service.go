// Package sessions holds the use cases of short-term sessions (the agent
// middleware's memory): record an exchange, read, list and delete sessions, fold the older
// messages of long sessions into their recursive summary, the Redis→SQL fallback
// and its recovery drain, and the sweep of expired SQL sessions. Each use case is
// one file. It depends on domain and ports only.
package sessions

import (
	"context"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/domain/secret"
	"engram/domain/session"
	"engram/ports"
)

// Conversations is the extraction channel as record_exchange feeds it: the
// exchange's messages become messages of the conversation named by the session
// id, so long-term extraction runs on the user's message after the debounce.
type Conversations interface {
	RecordTurn(ctx context.Context, scope memory.Scope, msgs []conversation.Input) error
}

// Notifier is told that a session was queued for a fold, so a folder in this
// process starts at once instead of at its next poll.
type Notifier interface {
	Notify()
}

// ExchangeObserver is told of each exchange once it is recorded, a retry too (the
// first try may have written the session before it failed); the user's profile
// is marked for a refresh, since their sessions are one of its sources. It must
// return at once: it runs on the request path.
type ExchangeObserver interface {
	ExchangeRecorded(scope memory.Scope)
}

// Deps are what the use cases call.
type Deps struct {
	Store         ports.SessionStore
	Conversations Conversations
	Clock         ports.Clock
	IDs           ports.IDs
	Notifier      Notifier         // optional
	Exchanges     ExchangeObserver // optional
	// Erasures (optional) hides a user being erased: their sessions read
	// as absent and their turns are refused until the purge is done.
	Erasures ports.ErasureGuard
}

// Options shape the use cases.
type Options struct {
	Policy session.Policy
	// Secrets is what a secret in a turn becomes before it is stored
	// (ENGRAM_SECRETS); the zero value stores it as given.
	Secrets secret.Mode
}

// Service runs the session use cases.
type Service struct {
	deps Deps
	opts Options
}

// New builds the service.
func New(deps Deps, opts Options) *Service {
	opts.Policy = opts.Policy.WithDefaults()
	return &Service{deps: deps, opts: opts}
}

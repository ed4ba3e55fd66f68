// Package session is the short-term memory of one conversation with a flow (the agent
// middleware's memory): the exchanges an agent records after each turn, the
// session's meta, its recursive summary, and the policy that decides when the older
// messages are folded into that summary and which ones.
//
// A session is named by tenant, user, flow and the client's session id (Ref). The
// stores keep the most recent messages (trimmed to a maximum), the meta (flow name,
// created, last active, messages recorded) and the summary; folding replaces the
// oldest messages by a new summary made of the previous summary and those messages.
//
// Pure Go, standard library only (and the other domain packages).
package session

import (
	"time"

	"engram/domain/conversation"
)

// Message is one message a session holds.
type Message struct {
	// ID is unique in the session: the exchange id and the role ("x1/user").
	ID         string
	ExchangeID string
	Role       conversation.Role // user or assistant
	Content    string
	At         time.Time // when the exchange was recorded, UTC to the microsecond
	// Seq is the store's order of the message in the session, from 1; it breaks
	// ties of At. A session that expired and starts again counts from 1 again.
	Seq int64
}

// Meta is what a session is, apart from its messages and summary.
type Meta struct {
	Ref          Ref
	FlowName     string
	CreatedAt    time.Time
	LastActiveAt time.Time
	// MessageCount counts the messages recorded in the session over its life,
	// folded and trimmed ones included.
	MessageCount int64
	// Held is how many messages the session holds now (at most the store's
	// maximum history).
	Held int
}

// Live reports whether the meta exists (it expires with the messages).
func (m Meta) Live() bool { return !m.CreatedAt.IsZero() }

// Summary is the session's recursive summary.
type Summary struct {
	Text string
	// Version counts the folds written; a fold is applied only onto the version
	// it was made from (compare-and-swap). 0: no summary.
	Version   int64
	UpdatedAt time.Time
}

// View is a session as a read returns it: meta, summary and the most recent
// messages, oldest first.
type View struct {
	Meta     Meta
	Summary  Summary
	Messages []Message
}

// Exists reports whether anything of the session is left: live meta or a summary
// (which outlives the messages).
func (v View) Exists() bool { return v.Meta.Live() || v.Summary.Text != "" }

// State is everything a store holds of a session, for moving it between stores
// (the SQL fallback's sessions into Redis once Redis is back).
type State struct {
	View
	// ExchangeIDs are the most recent exchange ids, oldest first: a retried
	// exchange is recognised by them even after its messages were folded.
	ExchangeIDs []string
	// Rev counts every change of the session in its store (compare-and-swap of
	// whole-session writes). 0: the store has no such session.
	Rev int64
}

// MaxExchangeIDs is how many recent exchange ids a session remembers for
// idempotency: a retry arrives seconds after the first try, not 64 turns later.
const MaxExchangeIDs = 64

// Limits are the store's bounds (defaults: 40 messages, 7 days, 30 days).
type Limits struct {
	MaxHistory int           // messages kept per session; older ones are trimmed
	MessageTTL time.Duration // messages and meta, from the last exchange
	SummaryTTL time.Duration // summary and the user's session index, from the last change
}

// Defaults of Limits.
const (
	DefaultMaxHistory = 40
	DefaultMessageTTL = 7 * 24 * time.Hour
	DefaultSummaryTTL = 30 * 24 * time.Hour
)

// WithDefaults fills the zero fields.
func (l Limits) WithDefaults() Limits {
	if l.MaxHistory <= 0 {
		l.MaxHistory = DefaultMaxHistory
	}
	if l.MessageTTL <= 0 {
		l.MessageTTL = DefaultMessageTTL
	}
	if l.SummaryTTL <= 0 {
		l.SummaryTTL = DefaultSummaryTTL
	}
	return l
}

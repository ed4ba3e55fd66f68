package ports

import (
	"context"

	"engram/domain/memory"
	"engram/domain/session"
)

// SessionStore keeps short-term sessions: each session's most recent messages,
// its meta and its summary, and the user's index of sessions by last activity. It is
// built with session.Limits: at most MaxHistory messages per session (older ones
// are trimmed), messages and meta expire MessageTTL after the last exchange, the
// summary and the index entry SummaryTTL after their last change. Every write is
// atomic: a reader sees a session before or after an exchange, never half of it.
type SessionStore interface {
	// AppendExchange adds the exchange's two messages, creates or refreshes the
	// meta (a session whose meta expired starts again) and moves the session to
	// the front of the user's index, in one atomic write. An exchange id the
	// session already recorded writes nothing: the result says Duplicate, with the
	// meta as stored. When the session then holds at least FoldAt messages it is
	// queued for a fold (FoldQueued).
	AppendExchange(ctx context.Context, a SessionAppend) (SessionAppended, error)

	// Session returns the meta, the summary and the limit most recent messages
	// (oldest first; limit <= 0: every message held), read together. ErrNotFound
	// when the session has neither live meta nor a summary.
	Session(ctx context.Context, ref session.Ref, limit int) (session.View, error)

	// Sessions returns the user's sessions with live meta, the most recently
	// active first, at most q.Limit; with q.SessionID, only that session id's (one
	// per flow). The listing reads the index: no key scans.
	Sessions(ctx context.Context, scope memory.Scope, q SessionQuery) ([]session.Meta, error)

	// DeleteSession removes the session's messages, meta, summary, fold queue
	// entry and index entry. ErrNotFound when there was nothing to remove.
	DeleteSession(ctx context.Context, ref session.Ref) error

	// PurgeUser removes every session of the user and the user's index, and says
	// how many of each kind it removed ("sessions", "session_messages", "summaries"). It
	// is the erasure hook: nothing of the user is left, expired leftovers included.
	PurgeUser(ctx context.Context, scope memory.Scope) (map[string]int64, error)
}

// SessionAppend is one exchange to record.
type SessionAppend struct {
	Exchange session.Exchange
	// FoldAt queues the session for a fold once it holds this many messages
	// (the policy's threshold); 0 never queues.
	FoldAt int
}

// SessionAppended is the session after AppendExchange.
type SessionAppended struct {
	Meta       session.Meta
	Duplicate  bool // the exchange id was recorded before; nothing was written
	FoldQueued bool
	// Relayed: the turn was also queued, in the same atomic write, for the
	// extraction channel (see TurnQueue); the caller need not write its messages.
	Relayed bool
}

// SessionQuery narrows a listing.
type SessionQuery struct {
	SessionID string // empty: every session
	Limit     int    // 1..MaxSessionList
}

// MaxSessionList bounds a listing.
const MaxSessionList = 1000

package ports

import (
	"context"
	"time"

	"engram/domain/session"
)

// SessionFolds is the folding side of a session store: sessions queued by
// AppendExchange are claimed by one folder at a time, and a fold is applied only if
// the session's summary is still the one it was made from.
//
// Claims: a folder claims a session for a lease; until the lease ends no other
// folder gets it, and a folder that dies leaves its claim to lapse. A fold applied
// after the claim was lost, or onto a summary that changed meanwhile, writes
// nothing. So several processes never fold one session twice, and a crash at any
// point leaves the old state or the new one.
type SessionFolds interface {
	// ClaimFolds claims up to c.Limit queued sessions whose fold is due (queued
	// and not before the retry time a release set) and not claimed by a live
	// lease, for c.Holder until c.Now+c.Lease, and returns each whole (every
	// message held). A session that expired or was deleted meanwhile comes back
	// with no messages.
	ClaimFolds(ctx context.Context, c FoldClaim) ([]session.View, error)

	// ApplyFold, while f.Holder still holds the claim at f.At and the summary
	// version is still f.BaseVersion, removes the messages f.MessageIDs names and writes
	// f.Summary as version BaseVersion+1, in one atomic write, and releases the
	// claim. Messages appended meanwhile stay. The session leaves the queue
	// unless it still holds f.FoldAt messages. Otherwise ErrConflict and nothing
	// is written.
	ApplyFold(ctx context.Context, f session.Fold) error

	// ReleaseFold gives a claim back: the session is due again at retryAt, or
	// leaves the queue when retryAt is zero. A claim no longer holder's is left
	// alone.
	ReleaseFold(ctx context.Context, ref session.Ref, holder string, retryAt time.Time) error
}

// FoldClaim says what a folder asks for.
type FoldClaim struct {
	Holder string
	Now    time.Time
	Lease  time.Duration
	Limit  int
}

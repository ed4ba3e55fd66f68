package ports

import (
	"context"
	"time"
)

// LexicalCursors are the named positions of the lexical indexer's background
// passes, each held by one process at a time under a lease, so several indexer
// processes share one pass instead of all doing it.
type LexicalCursors interface {
	// Claim gives holder the named cursor until now+lease, unless another
	// holder's lease is still running (ok false), and returns its position
	// ("" when unset). Claiming again renews the lease.
	Claim(ctx context.Context, name, holder string, now time.Time, lease time.Duration) (position string, ok bool, err error)

	// Set stores the named cursor's position.
	Set(ctx context.Context, name, position string) error

	// Release ends holder's lease of the named cursor (a process shutting
	// down), so another holder may claim it at once. Another holder's lease is
	// left alone.
	Release(ctx context.Context, name, holder string) error
}

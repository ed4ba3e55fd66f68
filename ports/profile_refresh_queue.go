package ports

import (
	"context"
	"time"

	"engram/domain/memory"
)

// StaleProfile is a user whose profile a worker claimed to derive again.
// Generation tells a mark that arrived during the run from the one claimed.
type StaleProfile struct {
	Scope      memory.Scope
	Generation int64
}

// ProfileRefreshQueue holds, per user, one pending refresh of the derived profile
// fields (profile.RefreshMark): marks coalesce and debounce, and workers of any
// process claim due ones with a lease, like messages.
type ProfileRefreshQueue interface {
	// MarkProfileStale records a change at now, debounced with profile.NextMark.
	MarkProfileStale(ctx context.Context, scope memory.Scope, now time.Time, debounce, maxWait time.Duration) error

	// ClaimStaleProfiles claims up to limit users whose refresh is due at now and
	// that nobody holds (or whose holder's lease lapsed), for worker until
	// now+lease.
	ClaimStaleProfiles(ctx context.Context, worker string, now time.Time, lease time.Duration, limit int) ([]StaleProfile, error)

	// FinishProfileRefresh ends worker's claim: the mark is removed if nothing
	// marked the user again since the claim, else it stays for the next run. A
	// claim no longer the worker's is left alone.
	FinishProfileRefresh(ctx context.Context, worker string, s StaleProfile) error
}

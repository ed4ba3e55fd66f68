package ports

import (
	"context"

	"engram/domain/memory"
)

// UserPurger removes everything of one user that a store or an index holds: the
// hook every store of user data implements so an erasure (JobEraseUser) reaches it.
// Bootstrap registers each one with a name and a phase (domain/erasure); stores
// that later steps add (sessions, summaries, traces, profiles, org entries) plug in
// the same way.
//
// PurgeUser must be idempotent — an erasure that crashed runs every step again —
// and must confine itself to the scope. It returns how many items it removed by
// kind ("memories": 12, "vectors": 30…). ErrConflict (wrapped) means the user's
// items are busy right now (a worker holds a claim on them): the caller waits a
// little and calls again.
type UserPurger interface {
	PurgeUser(ctx context.Context, scope memory.Scope) (removed map[string]int64, err error)
}

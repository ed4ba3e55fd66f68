package ports

import (
	"context"
	"time"

	"engram/domain/memory"
	"engram/domain/promptctx"
)

// TraceStore keeps the traces of context calls (README "Context"): read by id
// within the tenant, or as the user's latest; swept once past their retention;
// purged with the user.
type TraceStore interface {
	// SaveTraces stores new traces in one write. A trace of a user being erased
	// is not written, and that is no error: nothing of such a user may be added.
	// A trace whose id is stored already is left as it is.
	SaveTraces(ctx context.Context, traces []promptctx.Trace) error

	// Trace returns one trace of the tenant. ErrNotFound when absent.
	Trace(ctx context.Context, tenant, id string) (promptctx.Trace, error)

	// LatestTrace returns the user's most recent trace (the greatest id: ids
	// sort by time). ErrNotFound when the user has none.
	LatestTrace(ctx context.Context, scope memory.Scope) (promptctx.Trace, error)

	// ListTraces returns the user's traces newest first (by id), at most limit
	// of them, only those with an id below before when before is not empty (the
	// last id of the previous page). Nothing of another user or tenant.
	ListTraces(ctx context.Context, scope memory.Scope, before string, limit int) ([]promptctx.Trace, error)

	// DeleteTracesBefore removes up to limit traces made before cutoff, the
	// oldest first, and says how many it removed.
	DeleteTracesBefore(ctx context.Context, cutoff time.Time, limit int) (int64, error)

	// PurgeUser removes every trace of the user ("traces"): the erasure hook.
	PurgeUser(ctx context.Context, scope memory.Scope) (map[string]int64, error)
}

// PurgedTraces is the kind PurgeUser counts.
const PurgedTraces = "traces"

package ports

import (
	"context"
	"fmt"

	"engram/domain/memory"
	"engram/domain/profile"
)

// ActivityStore keeps users' activity events (tasks, workflow runs), the input of
// the task statistics and favourite workflows.
type ActivityStore interface {
	// RecordActivity stores an event, idempotently on its event id within the user:
	// a repeat that says the same returns the stored event with created false; a
	// repeat that says something else is an *ActivityConflictError and nothing is
	// stored.
	RecordActivity(ctx context.Context, a profile.Activity) (stored profile.Activity, created bool, err error)

	// ActivityTallies sums the user's events by kind and flow.
	ActivityTallies(ctx context.Context, scope memory.Scope) ([]profile.ActivityTally, error)
}

// ActivityConflictError is an event id repeated with other content: a client bug,
// not a retry. It wraps ErrConflict.
type ActivityConflictError struct {
	EventID string
}

func (e *ActivityConflictError) Error() string {
	return fmt.Sprintf("event_id %q is already stored with a different kind, time, flow or duration", e.EventID)
}

func (e *ActivityConflictError) Unwrap() error { return ErrConflict }

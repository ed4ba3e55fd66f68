package ports

import (
	"context"
	"fmt"

	"engram/domain/memory"
)

// ErasureGuard says whether a user is being erased. From the moment an erasure is
// requested until its job is DONE the user's reads find nothing, as for a user that
// never existed: the stores of the truth check it after reading, and use cases over
// other stores (sessions, profiles) check it the same way.
type ErasureGuard interface {
	// Erasing returns the id of the user's open erasure job, "" when there is none.
	Erasing(ctx context.Context, scope memory.Scope) (jobID string, err error)
}

// ErasingJob is g's open erasure job of the user, "" when there is none or g is
// nil (no erasure configured): the check of use cases whose guard is optional.
func ErasingJob(ctx context.Context, g ErasureGuard, scope memory.Scope) (string, error) {
	if g == nil {
		return "", nil
	}
	return g.Erasing(ctx, scope)
}

// RefuseErasing is the *ErasingError of a write of a user being erased, nil when
// the user is not (or g is nil): the check a use case makes before it writes.
func RefuseErasing(ctx context.Context, g ErasureGuard, scope memory.Scope) error {
	job, err := ErasingJob(ctx, g, scope)
	if err != nil {
		return err
	}
	if job != "" {
		return &ErasingError{JobID: job}
	}
	return nil
}

// ErasureStore starts erasures (DELETE /v1/users/{user}). The erasure job is a
// JobEraseUser in the JobStore; while it is open it is the user's tombstone.
type ErasureStore interface {
	ErasureGuard

	// BeginErasure stores job (kind JobEraseUser, stored QUEUED) unless the scope
	// already has an open erasure (QUEUED or RUNNING), which it returns instead
	// with created false. When it returns, every write of the user that has not
	// committed yet is refused with an *ErasingError, and so is every later write
	// until the job is DONE: nothing the purge has yet to delete can be added to.
	BeginErasure(ctx context.Context, job Job) (stored Job, created bool, err error)

	// ErasingUsers returns, of these users of the tenant, those being erased,
	// with their job ids.
	ErasingUsers(ctx context.Context, tenant string, users []string) (map[string]string, error)
}

// ErasingError refuses a write of a user whose erasure is in progress. It wraps
// ErrConflict: the write may be sent again once the job is DONE, and then starts a
// clean slate.
type ErasingError struct {
	JobID string
}

func (e *ErasingError) Error() string {
	return fmt.Sprintf("the user is being erased (job %s): nothing of the user can be written until that job is DONE", e.JobID)
}

func (e *ErasingError) Unwrap() error { return ErrConflict }

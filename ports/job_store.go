package ports

import (
	"context"
	"time"

	"engram/domain/memory"
)

// JobKind names a background job.
type JobKind string

// JobConsolidate is the per-user clean-up of F9: merge near-duplicates, drop noise
// and expired memories, normalise keys.
const JobConsolidate JobKind = "consolidate"

// JobStatus is where a job stands.
type JobStatus string

const (
	JobQueued  JobStatus = "QUEUED"
	JobRunning JobStatus = "RUNNING"
	JobDone    JobStatus = "DONE"
	JobFailed  JobStatus = "FAILED"
)

// Job is one background job of a user, run by a worker.
type Job struct {
	ID         string
	Scope      memory.Scope
	Kind       JobKind
	Status     JobStatus
	Attempts   int
	Error      string
	Counts     map[string]int // what the job did ("merged": 2, "expired": 1…)
	CreatedAt  time.Time
	StartedAt  time.Time // zero until a worker starts it
	FinishedAt time.Time // zero until it is DONE or FAILED
}

// JobStore keeps background jobs; workers claim them like messages, with a lease.
type JobStore interface {
	// EnqueueJob stores a QUEUED job, unless the scope already has a QUEUED job of
	// the same kind: then that one is returned and nothing is stored.
	EnqueueJob(ctx context.Context, job Job) (Job, error)

	// Job returns a job of the tenant. ErrNotFound if absent or another tenant's.
	Job(ctx context.Context, tenant, id string) (Job, error)

	// ClaimJob marks the oldest QUEUED job (or a RUNNING one whose lease lapsed)
	// RUNNING for worker until now+lease, counts the attempt and returns it;
	// ErrNotFound when there is none.
	ClaimJob(ctx context.Context, worker string, now time.Time, lease time.Duration) (Job, error)

	// FinishJob stores the job's outcome if worker still holds its claim; else
	// ErrConflict.
	FinishJob(ctx context.Context, worker string, job Job) error
}

package ports

import (
	"context"
	"time"

	"engram/domain/memory"
)

// JobKind names a background job.
type JobKind string

const (
	// JobConsolidate is the per-user clean-up of the lifecycle: merge near-duplicates, drop
	// noise and expired memories, normalise keys.
	JobConsolidate JobKind = "consolidate"
	// JobEraseUser purges everything of a user. While it is open (QUEUED or
	// RUNNING) it is the user's tombstone: reads of the user find nothing and
	// writes are refused (ErasureStore). Once DONE it is the erasure's audit
	// record and names the user only by memory.Scope.Fingerprint.
	JobEraseUser JobKind = "erase_user"
)

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
	ID       string
	Scope    memory.Scope
	Kind     JobKind
	Status   JobStatus
	Attempts int
	Error    string
	Counts   map[string]int // what the job did ("merged": 2, "expired": 1…)
	// RequestedBy says who asked for the job (erasures: the X-Acting-User, or
	// erasure.DefaultActor); empty when nobody is recorded.
	RequestedBy string
	// RetryAt, on a job finished QUEUED, is when it may be claimed again (a run
	// that failed and will be retried); zero: at once.
	RetryAt    time.Time
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

	// FinishJob stores the outcome (status, error, counts, finished at) if worker
	// still holds its claim; else ErrConflict. A job finished QUEUED goes back to
	// the queue, claimable from its RetryAt. A JobEraseUser job finished DONE is
	// stored under the fingerprint of its user (memory.Scope.Fingerprint) instead
	// of the user id, in the same write: the audit record that stays names nobody.
	FinishJob(ctx context.Context, worker string, job Job) error

	// RecordJobCounts stores the counts of a job still running (its progress, so
	// a job that resumes after a crash reports what the first run did) if worker
	// still holds its claim; else ErrConflict. The claim is kept.
	RecordJobCounts(ctx context.Context, worker, id string, counts map[string]int) error
}

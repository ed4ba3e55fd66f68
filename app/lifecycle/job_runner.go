package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"engram/app/runloop"
	"engram/ports"
)

// Defaults of JobRunnerOptions.
const (
	DefaultJobPollInterval = 2 * time.Second
	DefaultJobLease        = 10 * time.Minute
	DefaultJobTimeout      = 5 * time.Minute
)

// JobHandler runs the jobs of a kind that another package owns (the erasure of a
// user, app/erasure), so the worker role's one job loop runs every kind.
type JobHandler interface {
	// RunJob runs the job and returns its counts; worker holds the claim.
	RunJob(ctx context.Context, worker string, job ports.Job) (map[string]int, error)
	// RetryAfter says whether a failed run is tried again, and after how long;
	// false: the job is FAILED for good.
	RetryAfter(job ports.Job, err error) (time.Duration, bool)
}

// JobRunnerOptions shape the job loop.
type JobRunnerOptions struct {
	// Handlers run the kinds this package does not know; consolidation is built in.
	Handlers     map[ports.JobKind]JobHandler
	Worker       string
	PollInterval time.Duration
	Lease        time.Duration // a dead worker's job returns after this
	Timeout      time.Duration // one job's run; less than Lease
	Logger       *slog.Logger
}

// JobRunner claims background jobs and runs them, one at a time.
type JobRunner struct {
	svc  *Service
	opts JobRunnerOptions

	loop runloop.Loop
}

// NewJobRunner builds a job runner over the service's job store.
func NewJobRunner(svc *Service, opts JobRunnerOptions) *JobRunner {
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultJobPollInterval
	}
	if opts.Lease <= 0 {
		opts.Lease = DefaultJobLease
	}
	if opts.Timeout <= 0 || opts.Timeout >= opts.Lease {
		opts.Timeout = min(DefaultJobTimeout, opts.Lease/2)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &JobRunner{svc: svc, opts: opts}
}

// Tick runs every job that is waiting, then returns how many it finished.
func (r *JobRunner) Tick(ctx context.Context) (int, error) {
	n := 0
	for ctx.Err() == nil {
		job, err := r.svc.jobs.ClaimJob(ctx, r.opts.Worker, r.svc.clock.Now(), r.opts.Lease)
		if errors.Is(err, ports.ErrNotFound) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		r.run(ctx, job)
		n++
	}
	return n, ctx.Err()
}

func (r *JobRunner) run(ctx context.Context, job ports.Job) {
	started := time.Now()
	jctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	var (
		counts map[string]int
		err    error
	)
	handler, handled := r.opts.Handlers[job.Kind]
	switch {
	case handled:
		counts, err = handler.RunJob(jctx, r.opts.Worker, job)
	case job.Kind == ports.JobConsolidate:
		counts, err = r.svc.Consolidate(jctx, job.Scope)
	default:
		err = fmt.Errorf("unknown job kind %q", job.Kind)
	}
	if ctx.Err() != nil {
		return // shutting down: the job returns to the queue after its lease
	}
	now := r.svc.clock.Now()
	job.Counts, job.FinishedAt, job.Status, job.Error = counts, now, ports.JobDone, ""
	if err != nil {
		job.Status, job.Error = ports.JobFailed, err.Error()
		if delay, retry := retryOf(handler, handled, job, err); retry {
			job.Status, job.RetryAt, job.FinishedAt = ports.JobQueued, now.Add(delay), time.Time{}
			r.opts.Logger.Warn("job failed; it runs again", "job", job.ID, "kind", job.Kind, "attempts", job.Attempts, "retry_at", job.RetryAt, "error", err)
		} else {
			r.opts.Logger.Warn("job failed", "job", job.ID, "kind", job.Kind, "error", err)
		}
	}
	fctx, fcancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer fcancel()
	if err := r.svc.jobs.FinishJob(fctx, r.opts.Worker, job); err != nil {
		r.opts.Logger.Warn("storing a job's outcome failed", "job", job.ID, "error", err)
		return
	}
	if job.Status == ports.JobDone {
		r.opts.Logger.Info("job done", "job", job.ID, "kind", job.Kind, "tenant", job.Scope.Tenant, "user", loggedUser(job),
			"counts", job.Counts, "took", time.Since(started).Round(time.Millisecond))
	}
}

func retryOf(h JobHandler, handled bool, job ports.Job, err error) (time.Duration, bool) {
	if !handled {
		return 0, false
	}
	return h.RetryAfter(job, err)
}

// Start runs the loop in a goroutine.
func (r *JobRunner) Start() {
	r.loop.Start(func(ctx context.Context) {
		for {
			if _, err := r.Tick(ctx); err != nil && ctx.Err() == nil {
				r.opts.Logger.Warn("claiming jobs failed; retrying at the next poll", "error", err)
			}
			timer := time.NewTimer(r.opts.PollInterval)
			select {
			case <-r.loop.Stopped():
				timer.Stop()
				return
			case <-timer.C:
			}
		}
	})
}

// Stop ends the loop; a job in flight finishes unless ctx ends first.
func (r *JobRunner) Stop(ctx context.Context) error { return r.loop.Stop(ctx) }

// loggedUser is how a job's log line names its user: an erasure by the
// pseudonym its record keeps (memory.Scope.Fingerprint), never by the id it erases.
func loggedUser(job ports.Job) string {
	if job.Kind == ports.JobEraseUser {
		return job.Scope.Fingerprint()
	}
	return job.Scope.User
}

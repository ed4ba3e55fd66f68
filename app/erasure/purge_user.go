package erasure

import (
	"context"
	"fmt"
	"maps"
	"time"

	"engram/domain/erasure"
	"engram/ports"
)

// RunJob runs an erasure job (lifecycle.JobHandler): every purge step of the plan
// in order, each retried while it finds its rows claimed by a worker. After each
// step the counts so far are stored on the job, so a run that resumes after a
// crash or a failure reports what the earlier runs removed; every step is
// idempotent, so the resumed run simply does them all again. The run ends with a
// scrub of the database's files. On error the counts returned are those recorded.
func (s *Service) RunJob(ctx context.Context, worker string, job ports.Job) (map[string]int, error) {
	if job.Kind != ports.JobEraseUser {
		return job.Counts, fmt.Errorf("erasure: job %s is a %s job", job.ID, job.Kind)
	}
	counts := maps.Clone(job.Counts)
	if counts == nil {
		counts = map[string]int{}
	}
	for _, step := range s.plan.Steps {
		p := s.purger(step.Name)
		removed, err := whileBusy(ctx, func() (map[string]int64, error) {
			removed, err := p.PurgeUser(ctx, job.Scope)
			if err != nil {
				// What the attempt removed before failing counts too.
				counts = erasure.Tally(counts, removed)
				return nil, err
			}
			return removed, nil
		})
		counts = erasure.Tally(counts, removed)
		if rerr := s.deps.Jobs.RecordJobCounts(ctx, worker, job.ID, counts); rerr != nil && err == nil {
			err = rerr
		}
		if err != nil {
			return counts, fmt.Errorf("purge step %s: %w", step.Name, err)
		}
	}
	// A scrub that fails fails the run: the job runs again (every step is
	// idempotent) until the files hold nothing of the user either.
	return counts, s.scrub(ctx)
}

// RetryAfter says when a failed erasure runs again (lifecycle.JobHandler): always,
// after erasure.RetryDelay. Until it is done the user stays hidden and frozen.
func (s *Service) RetryAfter(job ports.Job, _ error) (time.Duration, bool) {
	return erasure.RetryDelay(job.Attempts), true
}

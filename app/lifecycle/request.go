package lifecycle

import (
	"context"
	"strings"

	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/ports"
)

// RequestConsolidation queues a consolidation of the user's memories and returns
// the job. A request while one is still queued joins it.
func (s *Service) RequestConsolidation(ctx context.Context, scope memory.Scope) (ports.Job, error) {
	return s.jobs.EnqueueJob(ctx, ports.Job{ID: s.ids.New(), Scope: scope, Kind: ports.JobConsolidate, CreatedAt: s.clock.Now()})
}

// Job returns one of the tenant's jobs.
func (s *Service) Job(ctx context.Context, tenant, id string) (ports.Job, error) {
	if err := memory.ValidateUserID("job_id", id); err != nil {
		return ports.Job{}, err
	}
	id = strings.TrimSpace(id)
	if len(id) > 64 {
		return ports.Job{}, invalid.FieldValue("job_id", id, "must be 1 to 64 characters")
	}
	job, err := s.jobs.Job(ctx, tenant, id)
	return job, ports.NameNotFound(err, "job", id)
}

package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"engram/domain/memory"
	"engram/ports"
)

// JobAccepted is the answer to a request that runs in the background.
type JobAccepted struct {
	JobID  string `json:"job_id"`
	Status string `json:"status" enum:"QUEUED,RUNNING,DONE,FAILED"`
}

type jobAcceptedOutput struct {
	Body JobAccepted
}

type jobPath struct {
	JobID string `path:"job_id" minLength:"1" maxLength:"64" doc:"The job_id a 202 answered with."`
}

// Job is a background job and what it did.
type Job struct {
	JobID       string         `json:"job_id"`
	Kind        string         `json:"kind" enum:"consolidate,erase_user"`
	User        string         `json:"user" doc:"The user; once an erase_user job is DONE, the SHA-256 hex of tenant and user id."`
	RequestedBy string         `json:"requested_by,omitempty" doc:"Who asked (erase_user: the X-Acting-User, or api-key)."`
	Status      string         `json:"status" enum:"QUEUED,RUNNING,DONE,FAILED"`
	Attempts    int            `json:"attempts"`
	Error       string         `json:"error,omitempty"`
	Counts      map[string]int `json:"counts" doc:"What the job did, e.g. merged, expired, noise_deleted, keys_normalised, scanned."`
	CreatedAt   time.Time      `json:"created_at"`
	StartedAt   *time.Time     `json:"started_at" nullable:"true"`
	FinishedAt  *time.Time     `json:"finished_at" nullable:"true"`
}

type jobOutput struct {
	Body Job
}

// Lifecycle is what the lifecycle operations need.
type Lifecycle interface {
	RequestConsolidation(ctx context.Context, scope memory.Scope) (ports.Job, error)
	Job(ctx context.Context, tenant, id string) (ports.Job, error)
}

// RegisterLifecycle adds consolidation and GET /v1/jobs/{job_id}
// (docs/API-NOTES.md): it is how a client follows
// the job a 202 named.
func RegisterLifecycle(api *API, svc Lifecycle) {
	log := api.opts.Logger
	tags := []string{"lifecycle"}
	describeTag(api.Root, "lifecycle", "Background work on stored memories: consolidation, reindexing, and the jobs that report it.")

	register(api, huma.Operation{
		OperationID: "memory_consolidate", Method: http.MethodPost, Path: "/users/{user}/consolidate",
		Summary: "Consolidate the user's memories in the background", Tags: tags, DefaultStatus: http.StatusAccepted,
		Description: "Merges near-duplicates, deletes noise-key and expired memories and folds key variants, each " +
			"change an event with channel consolidation. A worker runs the job; follow it with GET /v1/jobs/{job_id}. " +
			"A request while one is queued returns that job; 409 while the user is being erased.",
		Errors: []int{refusedWhileErasing},
	}, func(ctx context.Context, in *UserPath) (*jobAcceptedOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		job, err := svc.RequestConsolidation(ctx, sc)
		if err != nil {
			return nil, problem(ctx, log, err, "path")
		}
		return &jobAcceptedOutput{Body: JobAccepted{JobID: job.ID, Status: string(job.Status)}}, nil
	})

	register(api, huma.Operation{
		OperationID: "job_get", Method: http.MethodGet, Path: "/jobs/{job_id}",
		Metadata: map[string]any{reachMetadata: reachByOwner},
		Summary:  "Read a background job", Tags: tags, Errors: []int{http.StatusNotFound},
		Description: "The job's status, attempts, last error and what it did (counts; for erase_user, what was removed by kind: memories, memory_events, " +
			"messages, message_embeddings, jobs, vectors, lexical_docs…, kept up to date while it runs); 404 for a job of another tenant.",
	}, func(ctx context.Context, in *jobPath) (*jobOutput, error) {
		job, err := svc.Job(ctx, tenantFrom(ctx), in.JobID)
		if err == nil {
			err = ownedJob(ctx, job.Scope, in.JobID)
		}
		if err != nil {
			return nil, problem(ctx, log, err, "path")
		}
		counts := job.Counts
		if counts == nil {
			counts = map[string]int{}
		}
		return &jobOutput{Body: Job{
			JobID: job.ID, Kind: string(job.Kind), User: job.Scope.User, RequestedBy: job.RequestedBy, Status: string(job.Status),
			Attempts: job.Attempts, Error: job.Error, Counts: counts, CreatedAt: job.CreatedAt.UTC(),
			StartedAt: timePtr(job.StartedAt), FinishedAt: timePtr(job.FinishedAt),
		}}, nil
	})
}

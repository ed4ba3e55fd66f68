package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"engram/domain/memory"
	"engram/ports"
)

// JobStore keeps background jobs in jobs; workers claim them with a lease.
type JobStore struct {
	db *DB
}

var _ ports.JobStore = (*JobStore)(nil)

// NewJobStore serves ports.JobStore from db.
func NewJobStore(db *DB) *JobStore { return &JobStore{db: db} }

// EnqueueJob stores a QUEUED job unless the scope has one of the kind queued. A
// job for a user being erased is refused (*ports.ErasingError); erasures begin
// through ErasureStore.BeginErasure.
func (s *JobStore) EnqueueJob(ctx context.Context, job ports.Job) (ports.Job, error) {
	if job.Kind == ports.JobEraseUser {
		return ports.Job{}, fmt.Errorf("sqlstore: enqueue job: an erasure begins with BeginErasure")
	}
	var out ports.Job
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := s.db.guardWrite(ctx, tx, job.Scope); err != nil {
			return err
		}
		var queued []jobRow
		q := tx.NewSelect().Model(&queued).
			Where("j.tenant_id = ?", job.Scope.Tenant).
			Where("j.user_id = ?", job.Scope.User).
			Where("j.kind = ?", string(job.Kind)).
			Where("j.status = ?", string(ports.JobQueued)).
			OrderExpr("j.id ASC").Limit(1)
		if s.db.dialect == DialectPostgres {
			q = q.For("UPDATE")
		}
		if err := q.Scan(ctx); err != nil && classify(err) != classNotFound {
			return wrapErr("find queued job", err)
		}
		if len(queued) > 0 {
			var err error
			out, err = queued[0].toJob()
			return err
		}
		job.Status = ports.JobQueued
		row, err := toJobRow(job)
		if err != nil {
			return err
		}
		if _, err := tx.NewInsert().Model(&row).Exec(ctx); err != nil {
			return wrapErr("insert job", err)
		}
		out, err = row.toJob()
		return err
	})
	return out, err
}

// Job returns one job of the tenant.
func (s *JobStore) Job(ctx context.Context, tenant, id string) (ports.Job, error) {
	var row jobRow
	err := s.db.bun.NewSelect().Model(&row).
		Where("j.id = ?", id).
		Where("j.tenant_id = ?", tenant).
		Scan(ctx)
	if err != nil {
		return ports.Job{}, wrapErr("get job", err)
	}
	return row.toJob()
}

// ClaimJob takes the oldest open job that nobody holds.
func (s *JobStore) ClaimJob(ctx context.Context, worker string, now time.Time, lease time.Duration) (ports.Job, error) {
	lock := ""
	if s.db.dialect == DialectPostgres {
		lock = "FOR UPDATE SKIP LOCKED"
	}
	query := `UPDATE jobs SET status = 'RUNNING', claimed_by = ?0, claim_until = ?1,
			attempts = attempts + 1, started_at = ?2
		WHERE id IN (
			SELECT o.id FROM jobs AS o
			WHERE o.status IN ('QUEUED', 'RUNNING') AND (o.claim_until IS NULL OR o.claim_until <= ?2)
			ORDER BY o.created_at LIMIT 1 ` + lock + `)
		RETURNING ` + columnsOf(s.db, (*jobRow)(nil))
	var rows []jobRow
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		rows = rows[:0]
		return tx.NewRaw(query, worker, dbTime(now.Add(lease)), dbTime(now)).Scan(ctx, &rows)
	})
	if err != nil && classify(err) != classNotFound {
		return ports.Job{}, wrapErr("claim job", err)
	}
	if len(rows) == 0 {
		return ports.Job{}, fmt.Errorf("sqlstore: claim job: %w", ports.ErrNotFound)
	}
	return rows[0].toJob()
}

// FinishJob stores the outcome while the worker holds the job; a finished erasure
// is stored under its user's fingerprint.
func (s *JobStore) FinishJob(ctx context.Context, worker string, job ports.Job) error {
	row, err := toJobRow(job)
	if err != nil {
		return err
	}
	columns := []string{"status", "error", "counts", "finished_at", "claimed_by", "claim_until"}
	if job.Status == ports.JobQueued {
		row.ClaimUntil = dbTime(job.RetryAt) // not claimable before; claimed_by stays NULL
	}
	if job.Kind == ports.JobEraseUser && job.Status == ports.JobDone {
		row.UserID = job.Scope.Fingerprint()
		columns = append(columns, "user_id")
	}
	return s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Model(&row).
			Column(columns...).
			Where("id = ?", job.ID).
			Where("claimed_by = ?", worker).
			Exec(ctx)
		if err != nil {
			return wrapErr("finish job", err)
		}
		if n, err := res.RowsAffected(); err == nil && n != 1 {
			return fmt.Errorf("sqlstore: finish job %s: the claim is no longer %s's: %w", job.ID, worker, ports.ErrConflict)
		}
		return nil
	})
}

// RecordJobCounts stores a running job's counts while the worker holds it.
func (s *JobStore) RecordJobCounts(ctx context.Context, worker, id string, counts map[string]int) error {
	row, err := toJobRow(ports.Job{ID: id, Counts: counts})
	if err != nil {
		return err
	}
	return s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Model(&row).Column("counts").
			Where("id = ?", id).
			Where("claimed_by = ?", worker).
			Exec(ctx)
		if err != nil {
			return wrapErr("record job counts", err)
		}
		if n, err := res.RowsAffected(); err == nil && n != 1 {
			return fmt.Errorf("sqlstore: record counts of job %s: the claim is no longer %s's: %w", id, worker, ports.ErrConflict)
		}
		return nil
	})
}

// jobRow is one row of jobs; counts is a JSON object.
type jobRow struct {
	bun.BaseModel `bun:"table:jobs,alias:j"`

	ID         string    `bun:"id,pk"`
	TenantID   string    `bun:"tenant_id"`
	UserID     string    `bun:"user_id"`
	Kind       string    `bun:"kind"`
	Status     string    `bun:"status"`
	Attempts   int       `bun:"attempts"`
	Error      string    `bun:"error,nullzero"`
	Counts     string    `bun:"counts,nullzero"`
	CreatedAt  time.Time `bun:"created_at"`
	StartedAt  time.Time `bun:"started_at,nullzero"`
	FinishedAt time.Time `bun:"finished_at,nullzero"`
	ClaimedBy  string    `bun:"claimed_by,nullzero"`
	ClaimUntil time.Time `bun:"claim_until,nullzero"`
	// RequestedBy is who asked (erasures; migration 20261201040300).
	RequestedBy string `bun:"requested_by,nullzero"`
}

func toJobRow(j ports.Job) (jobRow, error) {
	row := jobRow{
		ID:          j.ID,
		TenantID:    j.Scope.Tenant,
		UserID:      j.Scope.User,
		Kind:        string(j.Kind),
		Status:      string(j.Status),
		Attempts:    j.Attempts,
		Error:       j.Error,
		CreatedAt:   dbTime(j.CreatedAt),
		StartedAt:   dbTime(j.StartedAt),
		FinishedAt:  dbTime(j.FinishedAt),
		RequestedBy: j.RequestedBy,
	}
	if len(j.Counts) > 0 {
		b, err := json.Marshal(j.Counts)
		if err != nil {
			return jobRow{}, fmt.Errorf("sqlstore: job counts: %w", err)
		}
		row.Counts = string(b)
	}
	return row, nil
}

func (r *jobRow) toJob() (ports.Job, error) {
	j := ports.Job{
		ID:          r.ID,
		Scope:       memory.Scope{Tenant: r.TenantID, User: r.UserID},
		Kind:        ports.JobKind(r.Kind),
		Status:      ports.JobStatus(r.Status),
		Attempts:    r.Attempts,
		Error:       r.Error,
		CreatedAt:   dbTime(r.CreatedAt),
		StartedAt:   dbTime(r.StartedAt),
		FinishedAt:  dbTime(r.FinishedAt),
		RequestedBy: r.RequestedBy,
	}
	if r.Counts != "" {
		if err := json.Unmarshal([]byte(r.Counts), &j.Counts); err != nil {
			return ports.Job{}, fmt.Errorf("sqlstore: job %s: counts: %w", r.ID, err)
		}
	}
	return j, nil
}

// NoiseMemories returns the scope's memories under noise keys, which listings
// hide, so that consolidation can delete them.
func (s *JobStore) NoiseMemories(ctx context.Context, scope memory.Scope) ([]memory.Memory, error) {
	var rows []memoryRow
	err := s.db.bun.NewSelect().Model(&rows).
		Where("m.tenant_id = ?", scope.Tenant).
		Where("m.user_id = ?", scope.User).
		WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			for _, rule := range memory.NoiseRules {
				q = q.WhereOr(`m.memory_key LIKE ? ESCAPE '\'`, escapeLike(rule.Prefix)+"%")
			}
			return q
		}).
		OrderExpr("m.memory_key ASC").
		Limit(MaxListLimit).
		Scan(ctx)
	if err != nil {
		return nil, wrapErr("list noise memories", err)
	}
	out := make([]memory.Memory, len(rows))
	for i := range rows {
		out[i] = memory.Restore(rows[i].toState())
	}
	return out, nil
}

package memstore

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"engram/domain/memory"
	"engram/ports"
)

// JobStore is an in-memory ports.JobStore.
type JobStore struct {
	mu   sync.Mutex
	jobs map[string]*storedJob
}

type storedJob struct {
	job        ports.Job
	claimedBy  string
	claimUntil time.Time
}

var _ ports.JobStore = (*JobStore)(nil)

// NewJobStore returns an empty store.
func NewJobStore() *JobStore { return &JobStore{jobs: map[string]*storedJob{}} }

// EnqueueJob stores a QUEUED job unless the scope has one of the kind queued; a
// job of a user being erased is refused, and erasures begin with BeginErasure.
func (s *JobStore) EnqueueJob(_ context.Context, job ports.Job) (ports.Job, error) {
	if job.Kind == ports.JobEraseUser {
		return ports.Job{}, fmt.Errorf("memstore: enqueue job: an erasure begins with BeginErasure")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if id := s.erasingLocked(job.Scope); id != "" {
		return ports.Job{}, &ports.ErasingError{JobID: id}
	}
	var oldest *storedJob
	for _, st := range s.jobs {
		j := st.job
		if j.Scope == job.Scope && j.Kind == job.Kind && j.Status == ports.JobQueued &&
			(oldest == nil || j.ID < oldest.job.ID) {
			oldest = st
		}
	}
	if oldest != nil {
		return copyJob(oldest.job), nil
	}
	if _, taken := s.jobs[job.ID]; taken {
		return ports.Job{}, fmt.Errorf("memstore: insert job: id %q is taken: %w", job.ID, ports.ErrConflict)
	}
	job = normJob(job)
	job.Status = ports.JobQueued
	s.jobs[job.ID] = &storedJob{job: job}
	return copyJob(job), nil
}

// Job returns one job of the tenant.
func (s *JobStore) Job(_ context.Context, tenant, id string) (ports.Job, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.jobs[id]
	if !ok || st.job.Scope.Tenant != tenant {
		return ports.Job{}, fmt.Errorf("memstore: get job: %w", ports.ErrNotFound)
	}
	return copyJob(st.job), nil
}

// ClaimJob takes the oldest open job that nobody holds.
func (s *JobStore) ClaimJob(_ context.Context, worker string, now time.Time, lease time.Duration) (ports.Job, error) {
	now = normTime(now)
	s.mu.Lock()
	defer s.mu.Unlock()
	var best *storedJob
	for _, st := range s.jobs {
		open := st.job.Status == ports.JobQueued || st.job.Status == ports.JobRunning
		free := st.claimUntil.IsZero() || !st.claimUntil.After(now)
		if !open || !free {
			continue
		}
		if best == nil || st.job.CreatedAt.Before(best.job.CreatedAt) ||
			st.job.CreatedAt.Equal(best.job.CreatedAt) && strings.Compare(st.job.ID, best.job.ID) < 0 {
			best = st
		}
	}
	if best == nil {
		return ports.Job{}, fmt.Errorf("memstore: claim job: %w", ports.ErrNotFound)
	}
	best.claimedBy, best.claimUntil = worker, normTime(now.Add(lease))
	best.job.Status = ports.JobRunning
	best.job.Attempts++
	best.job.StartedAt = now
	return copyJob(best.job), nil
}

// FinishJob stores the outcome while the worker holds the job.
func (s *JobStore) FinishJob(_ context.Context, worker string, job ports.Job) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.jobs[job.ID]
	if !ok || st.claimedBy != worker {
		return fmt.Errorf("memstore: finish job %s: the claim is no longer %s's: %w", job.ID, worker, ports.ErrConflict)
	}
	job = normJob(job)
	st.job.Status, st.job.Error, st.job.Counts, st.job.FinishedAt = job.Status, job.Error, maps.Clone(job.Counts), job.FinishedAt
	st.claimedBy, st.claimUntil = "", time.Time{}
	if job.Status == ports.JobQueued {
		st.claimUntil = normTime(job.RetryAt)
	}
	if job.Kind == ports.JobEraseUser && job.Status == ports.JobDone {
		st.job.Scope.User = job.Scope.Fingerprint()
	}
	return nil
}

// RecordJobCounts stores a running job's counts while the worker holds it.
func (s *JobStore) RecordJobCounts(_ context.Context, worker, id string, counts map[string]int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.jobs[id]
	if !ok || st.claimedBy != worker {
		return fmt.Errorf("memstore: record counts of job %s: the claim is no longer %s's: %w", id, worker, ports.ErrConflict)
	}
	st.job.Counts = maps.Clone(counts)
	return nil
}

var _ ports.ErasureStore = (*JobStore)(nil)

// Erasing returns the scope's open erasure job.
func (s *JobStore) Erasing(_ context.Context, scope memory.Scope) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.erasingLocked(scope), nil
}

func (s *JobStore) erasingLocked(scope memory.Scope) string {
	first := ""
	for id, st := range s.jobs {
		j := st.job
		if j.Kind == ports.JobEraseUser && j.Scope == scope && (j.Status == ports.JobQueued || j.Status == ports.JobRunning) &&
			(first == "" || id < first) {
			first = id
		}
	}
	return first
}

// BeginErasure stores the job unless an erasure of the scope is open. The store's
// lock orders it with the writes of the other stores, which check it under theirs.
func (s *JobStore) BeginErasure(_ context.Context, job ports.Job) (ports.Job, bool, error) {
	if job.Kind != ports.JobEraseUser {
		return ports.Job{}, false, fmt.Errorf("memstore: begin erasure: job kind %q, want %q", job.Kind, ports.JobEraseUser)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if id := s.erasingLocked(job.Scope); id != "" {
		return copyJob(s.jobs[id].job), false, nil
	}
	if _, taken := s.jobs[job.ID]; taken {
		return ports.Job{}, false, fmt.Errorf("memstore: insert job: id %q is taken: %w", job.ID, ports.ErrConflict)
	}
	job = normJob(job)
	job.Status = ports.JobQueued
	s.jobs[job.ID] = &storedJob{job: job}
	return copyJob(job), true, nil
}

// ErasingUsers returns the users of the list with an open erasure.
func (s *JobStore) ErasingUsers(_ context.Context, tenant string, users []string) (map[string]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	for _, u := range users {
		if id := s.erasingLocked(memory.Scope{Tenant: tenant, User: u}); id != "" {
			out[u] = id
		}
	}
	return out, nil
}

// purgeUser deletes the user's jobs but the open erasure.
func (s *JobStore) purgeUser(scope memory.Scope) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for id, st := range s.jobs {
		j := st.job
		open := j.Status == ports.JobQueued || j.Status == ports.JobRunning
		if j.Scope == scope && !(j.Kind == ports.JobEraseUser && open) {
			delete(s.jobs, id)
			n++
		}
	}
	return n
}

func normJob(j ports.Job) ports.Job {
	j.CreatedAt = normTime(j.CreatedAt)
	j.StartedAt = normTime(j.StartedAt)
	j.FinishedAt = normTime(j.FinishedAt)
	j.Counts = maps.Clone(j.Counts)
	return j
}

func copyJob(j ports.Job) ports.Job {
	j.Counts = maps.Clone(j.Counts)
	return j
}

// NoiseMemories returns the scope's memories under noise keys, which listings
// hide, so that consolidation can delete them.
func (s *MemoryStore) NoiseMemories(_ context.Context, scope memory.Scope) ([]memory.Memory, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []memory.Memory
	for k, st := range s.memories {
		if k.tenant == scope.Tenant && k.user == scope.User && memory.IsNoise(st.Key) {
			out = append(out, memory.Restore(st))
		}
	}
	slices.SortFunc(out, func(a, b memory.Memory) int { return strings.Compare(a.Key().String(), b.Key().String()) })
	return out, nil
}

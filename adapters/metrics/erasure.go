package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"engram/app/erasure"
	"engram/domain/memory"
	"engram/ports"
)

// Eraser is the erasure use cases as the HTTP adapter and the job runner call them.
type Eraser interface {
	EraseUser(ctx context.Context, cmd erasure.EraseUser) (erasure.Erasure, error)
	DeleteMessage(ctx context.Context, cmd erasure.DeleteMessage) (erasure.DeletedMessage, error)
	PurgeMemory(ctx context.Context, cmd erasure.PurgeMemory) (memory.Memory, error)
	DeleteSession(ctx context.Context, cmd erasure.DeleteSession) (erasure.DeletedSession, error)
	RunJob(ctx context.Context, worker string, job ports.Job) (map[string]int, error)
	RetryAfter(job ports.Job, err error) (time.Duration, bool)
}

type eraser struct {
	next     Eraser
	started  prometheus.Counter
	finished *prometheus.CounterVec
	duration prometheus.Histogram
	rows     *prometheus.CounterVec
	single   *prometheus.CounterVec
}

// Erasure decorates the erasure use cases with engram_erasures_started_total (new
// erasures; a repeated request joins the open one and is not counted),
// engram_erasure_runs_total by outcome (done, retry), engram_erasure_run_duration_seconds
// (one run of a purge job), engram_erasure_rows_purged_total by kind (what the
// runs removed: memories, messages, vectors…) and engram_erasures_single_total by
// what was erased on its own (message, message_cascade, memory, session,
// session_cascade). Call it once per
// Metrics.
func (m *Metrics) Erasure(next Eraser) Eraser {
	e := &eraser{
		next: next,
		started: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "engram_erasures_started_total", Help: "User erasures opened (DELETE /v1/users/{user}); a repeated request is not counted.",
		}),
		finished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "engram_erasure_runs_total", Help: "Runs of user erasure jobs by outcome: done, or retry (the run failed and the job runs again).",
		}, []string{"outcome"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "engram_erasure_run_duration_seconds", Help: "How long one run of a user erasure job took.",
			Buckets: []float64{.01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300},
		}),
		rows: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "engram_erasure_rows_purged_total", Help: "Items removed by erasures, by kind (memories, memory_events, messages, vectors, lexical_docs…).",
		}, []string{"kind"}),
		single: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "engram_erasures_single_total", Help: "Erasures of one item: a message, a message with its memories, a memory purged, a session (with its memories).",
		}, []string{"what"}),
	}
	for _, o := range []string{"done", "retry"} {
		e.finished.WithLabelValues(o)
	}
	for _, w := range []string{"message", "message_cascade", "memory", "session", "session_cascade"} {
		e.single.WithLabelValues(w)
	}
	m.Registry.MustRegister(e.started, e.finished, e.duration, e.rows, e.single)
	return e
}

func (e *eraser) EraseUser(ctx context.Context, cmd erasure.EraseUser) (erasure.Erasure, error) {
	out, err := e.next.EraseUser(ctx, cmd)
	if err == nil && out.Created {
		e.started.Inc()
	}
	return out, err
}

func (e *eraser) DeleteMessage(ctx context.Context, cmd erasure.DeleteMessage) (erasure.DeletedMessage, error) {
	out, err := e.next.DeleteMessage(ctx, cmd)
	if err == nil {
		what := "message"
		if cmd.Cascade {
			what = "message_cascade"
		}
		e.single.WithLabelValues(what).Inc()
		if out.Message.Seq != "" {
			e.rows.WithLabelValues("messages").Inc()
		}
		e.rows.WithLabelValues("memories").Add(float64(len(out.Purged)))
	}
	return out, err
}

func (e *eraser) PurgeMemory(ctx context.Context, cmd erasure.PurgeMemory) (memory.Memory, error) {
	out, err := e.next.PurgeMemory(ctx, cmd)
	if err == nil {
		e.single.WithLabelValues("memory").Inc()
		e.rows.WithLabelValues("memories").Inc()
	}
	return out, err
}

func (e *eraser) DeleteSession(ctx context.Context, cmd erasure.DeleteSession) (erasure.DeletedSession, error) {
	out, err := e.next.DeleteSession(ctx, cmd)
	if err == nil {
		what := "session"
		if cmd.Cascade {
			what = "session_cascade"
		}
		e.single.WithLabelValues(what).Inc()
		e.rows.WithLabelValues("messages").Add(float64(out.Messages))
		e.rows.WithLabelValues("traces").Add(float64(out.Traces))
		e.rows.WithLabelValues("memories").Add(float64(len(out.Purged)))
	}
	return out, err
}

// RunJob counts what this run removed: the counts it returns less those it
// started from (an earlier run's, recorded on the job).
func (e *eraser) RunJob(ctx context.Context, worker string, job ports.Job) (map[string]int, error) {
	start := time.Now()
	counts, err := e.next.RunJob(ctx, worker, job)
	e.duration.Observe(time.Since(start).Seconds())
	for kind, n := range counts {
		if d := n - job.Counts[kind]; d > 0 {
			e.rows.WithLabelValues(kind).Add(float64(d))
		}
	}
	outcome := "done"
	if err != nil {
		outcome = "retry" // an erasure is never given up (erasure.Service.RetryAfter)
	}
	e.finished.WithLabelValues(outcome).Inc()
	return counts, err
}

func (e *eraser) RetryAfter(job ports.Job, err error) (time.Duration, bool) {
	return e.next.RetryAfter(job, err)
}

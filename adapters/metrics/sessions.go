package metrics

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"engram/app/sessions"
	"engram/domain/invalid"
	"engram/domain/session"
	"engram/ports"
)

// SessionService is the session use cases as the HTTP adapter calls them.
type SessionService interface {
	Record(ctx context.Context, cmd sessions.Record) (sessions.Recorded, error)
	Get(ctx context.Context, q sessions.Get) (session.View, error)
	List(ctx context.Context, q sessions.List) ([]session.Meta, error)
	Delete(ctx context.Context, cmd sessions.Delete) error
}

// SessionRecords measures record_exchange by stage and outcome around the
// session use cases.
type SessionRecords struct {
	next      SessionService
	record    *prometheus.HistogramVec
	exchanges *prometheus.CounterVec
}

// SessionEvents observes folds (sessions.FoldObserver: their outcomes, times and
// the summarizer's cost, stage summarise of LLMCost) and the Redis fallback
// (sessions.FailoverObserver).
type SessionEvents struct {
	cost      *LLMCost
	relayed   *prometheus.CounterVec
	folds     *prometheus.CounterVec
	foldTime  *prometheus.HistogramVec
	fallbacks *prometheus.CounterVec
	redisUp   prometheus.Gauge
	drained   prometheus.Counter
}

var (
	_ sessions.FoldObserver     = (*SessionEvents)(nil)
	_ sessions.FailoverObserver = (*SessionEvents)(nil)
	_ sessions.RelayObserver    = (*SessionEvents)(nil)
	_ SessionService            = (*SessionRecords)(nil)
)

var recordBuckets = []float64{.0001, .00025, .0005, .001, .002, .003, .005, .01, .025, .05, .1, .25, 1}

// SessionRecords registers the record_exchange collectors around next. Call it
// once per Metrics.
func (m *Metrics) SessionRecords(next SessionService) *SessionRecords {
	s := &SessionRecords{
		next: next,
		record: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "engram_session_record_duration_seconds", Buckets: recordBuckets,
			Help: "record_exchange in the server by stage: total, session_store (Redis or SQL) and messages (the extraction channel), which run side by side.",
		}, []string{"stage"}),
		exchanges: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "engram_session_exchanges_total", Help: "record_exchange calls by outcome: recorded, duplicate (a repeated exchange_id), invalid, failed.",
		}, []string{"outcome"}),
	}
	for _, stage := range []string{"total", "session_store", "messages"} {
		s.record.WithLabelValues(stage)
	}
	for _, o := range []string{"recorded", "duplicate", "invalid", "failed"} {
		s.exchanges.WithLabelValues(o)
	}
	m.Registry.MustRegister(s.record, s.exchanges)
	return s
}

// SessionEvents registers the fold and fallback collectors. Call it once per
// Metrics.
func (m *Metrics) SessionEvents() *SessionEvents {
	s := &SessionEvents{
		cost: m.LLMCost(),
		relayed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "engram_session_relayed_turns_total", Help: "Turns queued in Redis and written to the extraction channel by the relay (written), or dropped because the message store refused them for good (dropped).",
		}, []string{"outcome"}),
		folds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "engram_session_folds_total", Help: "Session folds by outcome: done, fallback (the offline summarizer wrote it), conflict, failed, skipped.",
		}, []string{"outcome"}),
		foldTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "engram_session_fold_duration_seconds", Help: "Time of one fold (summary and write) by outcome.",
			Buckets: []float64{.001, .005, .01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"outcome"}),
		fallbacks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "engram_session_redis_fallbacks_total", Help: "Session calls served by SQL because Redis could not answer, by operation.",
		}, []string{"op"}),
		redisUp: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "engram_session_redis_up", Help: "1 while session calls go to Redis, 0 while they go to the SQL fallback.",
		}),
		drained: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "engram_session_redis_drained_total", Help: "Sessions recorded in SQL during a Redis outage and moved back to Redis.",
		}),
	}
	s.redisUp.Set(1)
	for _, o := range []string{sessions.FoldDone, sessions.FoldFallback, sessions.FoldConflict, sessions.FoldFailed, sessions.FoldSkipped} {
		s.folds.WithLabelValues(o)
	}
	for _, op := range []string{"append", "read", "list"} {
		s.fallbacks.WithLabelValues(op)
	}
	s.relayed.WithLabelValues("written")
	s.relayed.WithLabelValues("dropped")
	m.Registry.MustRegister(s.relayed, s.folds, s.foldTime, s.fallbacks, s.redisUp, s.drained)
	return s
}

// Record measures record_exchange and its stages.
func (s *SessionRecords) Record(ctx context.Context, cmd sessions.Record) (sessions.Recorded, error) {
	start := time.Now()
	res, err := s.next.Record(ctx, cmd)
	var bad *invalid.Error
	switch {
	case errors.As(err, &bad):
		s.exchanges.WithLabelValues("invalid").Inc()
		return res, err
	case err != nil:
		s.exchanges.WithLabelValues("failed").Inc()
		return res, err
	case res.Duplicate:
		s.exchanges.WithLabelValues("duplicate").Inc()
	default:
		s.exchanges.WithLabelValues("recorded").Inc()
	}
	s.record.WithLabelValues("total").Observe(time.Since(start).Seconds())
	for stage, d := range res.Timings {
		s.record.WithLabelValues(stage).Observe(d.Seconds())
	}
	return res, nil
}

// Get passes through.
func (s *SessionRecords) Get(ctx context.Context, q sessions.Get) (session.View, error) {
	return s.next.Get(ctx, q)
}

// List passes through.
func (s *SessionRecords) List(ctx context.Context, q sessions.List) ([]session.Meta, error) {
	return s.next.List(ctx, q)
}

// Delete passes through.
func (s *SessionRecords) Delete(ctx context.Context, cmd sessions.Delete) error {
	return s.next.Delete(ctx, cmd)
}

// Folded implements sessions.FoldObserver.
func (s *SessionEvents) Folded(ref session.Ref, outcome string, elapsed time.Duration, usage ports.LLMUsage) {
	s.folds.WithLabelValues(outcome).Inc()
	s.foldTime.WithLabelValues(outcome).Observe(elapsed.Seconds())
	s.cost.Record(StageSummarise, ref.Scope.Tenant, usage)
}

// Fallback implements sessions.FailoverObserver.
func (s *SessionEvents) Fallback(op string) { s.fallbacks.WithLabelValues(op).Inc() }

// PrimaryUp implements sessions.FailoverObserver.
func (s *SessionEvents) PrimaryUp(up bool) {
	if up {
		s.redisUp.Set(1)
	} else {
		s.redisUp.Set(0)
	}
}

// Drained implements sessions.FailoverObserver.
func (s *SessionEvents) Drained(n int) { s.drained.Add(float64(n)) }

// Relayed implements sessions.RelayObserver.
func (s *SessionEvents) Relayed(written, dropped int) {
	s.relayed.WithLabelValues("written").Add(float64(written))
	s.relayed.WithLabelValues("dropped").Add(float64(dropped))
}

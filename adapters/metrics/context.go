package metrics

import (
	"context"
	"errors"

	"github.com/prometheus/client_golang/prometheus"

	"engram/app/contextbuild"
	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/domain/promptctx"
)

// ContextService is the context call and its traces as the HTTP adapter and the
// memory_context tool call them.
type ContextService interface {
	Build(ctx context.Context, r contextbuild.Request) (contextbuild.Result, error)
	Trace(ctx context.Context, tenant, id string) (promptctx.Trace, error)
	LatestTrace(ctx context.Context, scope memory.Scope) (promptctx.Trace, error)
	ListTraces(ctx context.Context, scope memory.Scope, before string, limit int) ([]promptctx.Trace, error)
}

// ContextCalls measures the context call around the use case: latency by stage,
// the characters injected, the items injected by section and the candidates
// dropped by reason.
type ContextCalls struct {
	next    ContextService
	latency *prometheus.HistogramVec
	chars   prometheus.Histogram
	items   *prometheus.CounterVec
	dropped *prometheus.CounterVec
	calls   *prometheus.CounterVec
}

var _ ContextService = (*ContextCalls)(nil)

// Reasons a context call drops a candidate, pre-registered so dashboards see them
// at 0 (the searches' and the packer's).
var contextDropReasons = []string{
	promptctx.ReasonBudget, promptctx.ReasonEmpty, promptctx.ReasonDuplicate, promptctx.ReasonInstructionLike,
	promptctx.ReasonCurrentSession, promptctx.ReasonBelowMinScore, "limit", "expired", "inactive", "noise", "filtered", "missing",
}

// ContextCalls registers the context collectors around next. Call it once per
// Metrics.
func (m *Metrics) ContextCalls(next ContextService) *ContextCalls {
	c := &ContextCalls{
		next: next,
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "engram_context_duration_seconds", Buckets: []float64{.0005, .001, .0025, .005, .0075, .01, .015, .025, .05, .1, .25, 1},
			Help: "The context call in the server by stage: session, profile, memories, episodes (the last two side by side), external, pack, trace (the handoff to the writer) and total.",
		}, []string{"stage"}),
		chars: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "engram_context_injected_chars", Buckets: []float64{0, 250, 500, 1000, 2000, 4000, 8000, 16000, 32000},
			Help: "Characters of the block a context call returned (0: nothing relevant, or nothing fit).",
		}),
		items: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "engram_context_items_total", Help: "Items injected by context calls, by section.",
		}, []string{"section"}),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "engram_context_dropped_total", Help: "Candidates context calls left out, by reason (those the searches never read included).",
		}, []string{"reason"}),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "engram_context_calls_total", Help: "Context calls by outcome: injected (a block), empty (nothing relevant or nothing fit), invalid, failed.",
		}, []string{"outcome"}),
	}
	for _, stage := range contextbuild.Stages {
		c.latency.WithLabelValues(stage)
	}
	for _, s := range promptctx.Order {
		c.items.WithLabelValues(string(s))
	}
	for _, r := range contextDropReasons {
		c.dropped.WithLabelValues(r)
	}
	for _, o := range []string{"injected", "empty", "invalid", "failed"} {
		c.calls.WithLabelValues(o)
	}
	m.Registry.MustRegister(c.latency, c.chars, c.items, c.dropped, c.calls)
	return c
}

// Build measures one context call.
func (c *ContextCalls) Build(ctx context.Context, r contextbuild.Request) (contextbuild.Result, error) {
	res, err := c.next.Build(ctx, r)
	var bad *invalid.Error
	switch {
	case errors.As(err, &bad):
		c.calls.WithLabelValues("invalid").Inc()
		return res, err
	case err != nil:
		c.calls.WithLabelValues("failed").Inc()
		return res, err
	case res.Prompt == "":
		c.calls.WithLabelValues("empty").Inc()
	default:
		c.calls.WithLabelValues("injected").Inc()
	}
	for stage, d := range res.Timings {
		c.latency.WithLabelValues(stage).Observe(d.Seconds())
	}
	c.chars.Observe(float64(res.InjectedChars))
	for s, n := range res.Trace.SourceCount {
		c.items.WithLabelValues(string(s)).Add(float64(n))
	}
	for _, h := range res.Trace.RawHits {
		if !h.Kept {
			c.dropped.WithLabelValues(h.Reason).Inc()
		}
	}
	for reason, n := range res.Trace.Omitted {
		c.dropped.WithLabelValues(reason).Add(float64(n))
	}
	return res, nil
}

// Trace passes through.
func (c *ContextCalls) Trace(ctx context.Context, tenant, id string) (promptctx.Trace, error) {
	return c.next.Trace(ctx, tenant, id)
}

// ListTraces passes through.
func (c *ContextCalls) ListTraces(ctx context.Context, scope memory.Scope, before string, limit int) ([]promptctx.Trace, error) {
	return c.next.ListTraces(ctx, scope, before, limit)
}

// LatestTrace passes through.
func (c *ContextCalls) LatestTrace(ctx context.Context, scope memory.Scope) (promptctx.Trace, error) {
	return c.next.LatestTrace(ctx, scope)
}

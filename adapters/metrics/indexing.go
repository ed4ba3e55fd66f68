package metrics

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"engram/ports"
)

// Vector-side collectors: the embedder and the vector index are decorated (every
// call is counted and timed, whoever makes it), the indexer is observed.

var (
	embedBuckets  = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}
	vectorBuckets = []float64{.0001, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}
)

// Indexing holds the vector side's collectors. Build it once per Metrics with
// Indexing; it decorates the embedder and the vector index and observes the indexer.
type Indexing struct {
	reg           prometheus.Registerer
	embedCalls    *prometheus.CounterVec
	embedTexts    prometheus.Counter
	embedDuration prometheus.Histogram
	vectorOps     *prometheus.CounterVec
	vectorRecords *prometheus.CounterVec
	vectorLatency *prometheus.HistogramVec
}

// Indexing registers the vector side's collectors. Call it once per Metrics.
func (m *Metrics) Indexing() *Indexing {
	c := &Indexing{
		reg: m.Registry,
		embedCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "engram_embed_calls_total", Help: "Embedder calls by outcome (ok, error, timeout).",
		}, []string{"outcome"}),
		embedTexts: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "engram_embed_texts_total", Help: "Texts embedded successfully.",
		}),
		embedDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "engram_embed_duration_seconds", Help: "Latency of one embedder call (one batch of texts).", Buckets: embedBuckets,
		}),
		vectorOps: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "engram_vector_operations_total", Help: "Vector index calls by operation (upsert, delete, search) and outcome.",
		}, []string{"op", "outcome"}),
		vectorRecords: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "engram_vector_records_total", Help: "Vectors written (upsert) or removed (delete) by successful calls.",
		}, []string{"op"}),
		vectorLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "engram_vector_operation_duration_seconds", Help: "Vector index call latency by operation.", Buckets: vectorBuckets,
		}, []string{"op"}),
	}
	m.Registry.MustRegister(c.embedCalls, c.embedTexts, c.embedDuration, c.vectorOps, c.vectorRecords, c.vectorLatency)
	return c
}

// outcomeOf names an error for a label: ok, timeout or error.
func outcomeOf(err error) string {
	switch {
	case err == nil:
		return OutcomeOK
	case errors.Is(err, context.DeadlineExceeded):
		return OutcomeTimeout
	}
	return OutcomeError
}

// embedder counts and times every Embed call.
type embedder struct {
	ports.Embedder
	c *Indexing
}

// Embedder decorates e with engram_embed_calls_total, engram_embed_texts_total and
// engram_embed_duration_seconds.
func (x *Indexing) Embedder(e ports.Embedder) ports.Embedder {
	return &embedder{Embedder: e, c: x}
}

func (e *embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	start := time.Now()
	out, err := e.Embedder.Embed(ctx, texts)
	e.c.embedDuration.Observe(time.Since(start).Seconds())
	e.c.embedCalls.WithLabelValues(outcomeOf(err)).Inc()
	if err == nil {
		e.c.embedTexts.Add(float64(len(texts)))
	}
	return out, err
}

// vectorIndex counts and times every call of a vector index.
type vectorIndex struct {
	ports.VectorIndex
	c *Indexing
}

// VectorIndex decorates ix with engram_vector_operations_total,
// engram_vector_records_total and engram_vector_operation_duration_seconds.
func (x *Indexing) VectorIndex(ix ports.VectorIndex) ports.VectorIndex {
	return &vectorIndex{VectorIndex: ix, c: x}
}

func (v *vectorIndex) observe(op string, start time.Time, err error, records int) {
	v.c.vectorLatency.WithLabelValues(op).Observe(time.Since(start).Seconds())
	v.c.vectorOps.WithLabelValues(op, outcomeOf(err)).Inc()
	if err == nil && records > 0 {
		v.c.vectorRecords.WithLabelValues(op).Add(float64(records))
	}
}

func (v *vectorIndex) Upsert(ctx context.Context, records []ports.VectorRecord) error {
	start := time.Now()
	err := v.VectorIndex.Upsert(ctx, records)
	v.observe("upsert", start, err, len(records))
	return err
}

func (v *vectorIndex) Delete(ctx context.Context, tenant string, ids []string) error {
	start := time.Now()
	err := v.VectorIndex.Delete(ctx, tenant, ids)
	v.observe("delete", start, err, len(ids))
	return err
}

func (v *vectorIndex) Search(ctx context.Context, q ports.VectorQuery) ([]ports.VectorHit, error) {
	start := time.Now()
	hits, err := v.VectorIndex.Search(ctx, q)
	v.observe("search", start, err, 0)
	return hits, err
}

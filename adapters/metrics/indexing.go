package metrics

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"engram/app/indexing"
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

	items    *prometheus.CounterVec
	embedded *prometheus.CounterVec
	reused   *prometheus.CounterVec
	written  *prometheus.CounterVec
	removed  prometheus.Counter
	failures *prometheus.CounterVec
	lag      *prometheus.HistogramVec
	batch    *prometheus.HistogramVec
}

var _ indexing.Observer = (*Indexing)(nil)

// lagBuckets span an in-process sync (milliseconds) to a backlog after an outage.
var lagBuckets = []float64{.01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600}

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
	c.items = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "engram_indexer_items_total", Help: "Memories and messages the indexer finished, by kind and outcome (synced, failed, stale: edited or requeued meanwhile).",
	}, []string{"kind", "outcome"})
	c.embedded = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "engram_indexer_embedded_total", Help: "Texts the indexer sent to the embedder, by kind.",
	}, []string{"kind"})
	c.reused = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "engram_indexer_unchanged_total", Help: "Items synced without embedding (same text and model as before), by kind.",
	}, []string{"kind"})
	c.written = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "engram_indexer_upserts_total", Help: "Vectors the indexer wrote, by kind (messages include neighbours whose context changed).",
	}, []string{"kind"})
	c.removed = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "engram_indexer_deletes_total", Help: "Vectors the indexer removed (deleted, expired or noise memories).",
	})
	c.failures = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "engram_indexer_failures_total", Help: "Items marked FAILED, by kind and stage (embed, upsert, delete, store).",
	}, []string{"kind", "stage"})
	c.lag = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "engram_index_lag_seconds", Help: "Time from an item becoming DIRTY to its vector being synced, by kind.", Buckets: lagBuckets,
	}, []string{"kind"})
	c.batch = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "engram_indexer_batch_duration_seconds", Help: "Duration of one indexer batch, by kind.", Buckets: embedBuckets,
	}, []string{"kind"})
	m.Registry.MustRegister(c.embedCalls, c.embedTexts, c.embedDuration, c.vectorOps, c.vectorRecords, c.vectorLatency,
		c.items, c.embedded, c.reused, c.written, c.removed, c.failures, c.lag, c.batch)
	return c
}

// Batch implements indexing.Observer.
func (x *Indexing) Batch(r indexing.Report) {
	kind := string(r.Kind)
	x.items.WithLabelValues(kind, "synced").Add(float64(r.Synced))
	x.items.WithLabelValues(kind, "failed").Add(float64(r.Failed))
	x.items.WithLabelValues(kind, "stale").Add(float64(r.Stale))
	x.embedded.WithLabelValues(kind).Add(float64(r.Embedded))
	x.reused.WithLabelValues(kind).Add(float64(r.Unchanged))
	x.written.WithLabelValues(kind).Add(float64(r.Upserted))
	x.removed.Add(float64(r.Removed))
	for stage, n := range r.Failures {
		x.failures.WithLabelValues(kind, stage).Add(float64(n))
	}
	for _, d := range r.Lags {
		x.lag.WithLabelValues(kind).Observe(d.Seconds())
	}
	x.batch.WithLabelValues(kind).Observe(r.Duration.Seconds())
}

// Backlog registers engram_vector_backlog{kind,status} and
// engram_vector_backlog_oldest_age_seconds, read from backlog at scrape time.
func (x *Indexing) Backlog(backlog func(ctx context.Context) (ports.VectorBacklog, error)) {
	x.reg.MustRegister(&backlogCollector{backlog: backlog})
}

var (
	backlogDesc = prometheus.NewDesc("engram_vector_backlog",
		"Memories and messages waiting for the indexer, by kind and vector status (DIRTY, FAILED).", []string{"kind", "status"}, nil)
	backlogAgeDesc = prometheus.NewDesc("engram_vector_backlog_oldest_age_seconds",
		"How long the longest-waiting DIRTY or FAILED item has waited; 0 when none.", nil, nil)
)

type backlogCollector struct {
	backlog func(ctx context.Context) (ports.VectorBacklog, error)
}

func (c *backlogCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- backlogDesc
	ch <- backlogAgeDesc
}

// Collect reads the backlog with a short timeout; on failure every value is -1
// (unknown, not a plausible 0).
func (c *backlogCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	now := time.Now()
	b, err := c.backlog(ctx)
	values := map[[2]string]int64{
		{"memory", "DIRTY"}: b.DirtyMemories, {"memory", "FAILED"}: b.FailedMemories,
		{"message", "DIRTY"}: b.DirtyMessages, {"message", "FAILED"}: b.FailedMessages,
	}
	for k, v := range values {
		if err != nil {
			v = -1
		}
		ch <- prometheus.MustNewConstMetric(backlogDesc, prometheus.GaugeValue, float64(v), k[0], k[1])
	}
	age := 0.0
	switch {
	case err != nil:
		age = -1
	case !b.OldestDirty.IsZero():
		age = max(now.Sub(b.OldestDirty).Seconds(), 0)
	}
	ch <- prometheus.MustNewConstMetric(backlogAgeDesc, prometheus.GaugeValue, age)
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

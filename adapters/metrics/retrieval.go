package metrics

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"engram/app/retrieval"
	"engram/domain/invalid"
)

// Searcher is the search use case as the HTTP adapter calls it.
type Searcher interface {
	Search(ctx context.Context, q retrieval.Search) (retrieval.Result, error)
}

var searchBuckets = []float64{.0005, .001, .0025, .005, .01, .02, .05, .1, .15, .25, .5, 1, 2.5}

type searcher struct {
	next      Searcher
	latency   *prometheus.HistogramVec
	fallbacks *prometheus.CounterVec
	failures  prometheus.Counter
}

// Search decorates a search use case with engram_search_duration_seconds (by the
// mode that answered), engram_search_fallbacks_total (by reason) and
// engram_search_errors_total, and registers engram_vector_breaker_state, read from
// breaker at scrape time (0 closed, 1 open, 2 half-open; retrieval.VectorGuard.State,
// the worse of its two breakers). Call it once per Metrics.
func (m *Metrics) Search(next Searcher, breaker func() retrieval.BreakerState) Searcher {
	s := &searcher{
		next: next,
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "engram_search_duration_seconds", Help: "Search latency in the server by the mode that answered (mode_used).",
			Buckets: searchBuckets,
		}, []string{"mode"}),
		fallbacks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "engram_search_fallbacks_total", Help: "Searches that asked for vectors and answered from lexical search, by reason.",
		}, []string{"reason"}),
		failures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "engram_search_errors_total", Help: "Searches that failed for another reason than an invalid request.",
		}),
	}
	for _, r := range retrieval.FallbackReasons {
		s.fallbacks.WithLabelValues(r)
	}
	for _, mode := range retrieval.Modes {
		s.latency.WithLabelValues(string(mode))
	}
	m.Registry.MustRegister(s.latency, s.fallbacks, s.failures,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "engram_vector_breaker_state", Help: "The vector search circuit breakers (vector index, embedder), the worse of them: 0 closed, 1 open, 2 half-open (the next search probes).",
		}, func() float64 { return float64(breaker()) }))
	return s
}

func (s *searcher) Search(ctx context.Context, q retrieval.Search) (retrieval.Result, error) {
	start := time.Now()
	res, err := s.next.Search(ctx, q)
	if err != nil {
		var bad *invalid.Error
		if !errors.As(err, &bad) {
			s.failures.Inc()
		}
		return res, err
	}
	s.latency.WithLabelValues(string(res.ModeUsed)).Observe(time.Since(start).Seconds())
	if res.FallbackReason != "" {
		s.fallbacks.WithLabelValues(res.FallbackReason).Inc()
	}
	return res, nil
}

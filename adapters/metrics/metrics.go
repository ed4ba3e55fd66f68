// Package metrics exposes engram's Prometheus metrics. Collectors wrap use cases and
// ports from the outside (decorators, observers); business code never imports
// Prometheus.
package metrics

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics owns one registry, so tests can build several without clashes.
type Metrics struct {
	Registry *prometheus.Registry

	httpRequests *prometheus.CounterVec
	httpDuration *prometheus.HistogramVec
	memoryWrites *prometheus.CounterVec

	costOnce sync.Once
	cost     *LLMCost // cost.go
}

// New registers the process collectors and engram's own.
func New() *Metrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m := &Metrics{
		Registry: reg,
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "engram_http_requests_total", Help: "HTTP requests by operation and status code.",
		}, []string{"operation", "code"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "engram_http_request_duration_seconds",
			Help:    "HTTP request latency by operation.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"operation"}),
		memoryWrites: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "engram_memory_writes_total", Help: "Memory changes by write channel and event op.",
		}, []string{"channel", "op"}),
	}
	reg.MustRegister(m.httpRequests, m.httpDuration, m.memoryWrites)
	return m
}

// Handler serves /metrics.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{})
}

// ObserveRequest implements httpapi.Observer.
func (m *Metrics) ObserveRequest(operation string, status int, elapsed time.Duration) {
	m.httpRequests.WithLabelValues(operation, strconv.Itoa(status)).Inc()
	m.httpDuration.WithLabelValues(operation).Observe(elapsed.Seconds())
}

// GaugeFunc registers a gauge read from count at scrape time (e.g. active memories),
// each read bounded by a short timeout so a slow database cannot hang /metrics.
func (m *Metrics) GaugeFunc(name, help string, count func(ctx context.Context) (int64, error)) {
	m.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		n, err := count(ctx)
		if err != nil {
			return -1 // visible in dashboards as "unknown", unlike a plausible 0
		}
		return float64(n)
	}))
}

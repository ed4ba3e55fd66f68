package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// OpsPath serves the operations page's figures as JSON.
const OpsPath = Path + "/ops.json"

// Facts are what the process says of itself at start-up: what runs and on what.
type Facts struct {
	Version       string   `json:"version"`
	Roles         []string `json:"roles"`
	Data          string   `json:"data"`           // sqlite or postgres
	Sessions      string   `json:"sessions"`       // redis, or sql when no Redis is configured
	VectorBackend string   `json:"vector_backend"` // local, pgvector, milvus
	Embedder      string   `json:"embedder"`       // local, or the remote provider and model
	Extractor     string   `json:"extractor"`      // rules, or the remote provider and model
	Auth          string   `json:"auth"`           // open or api_keys
}

// Ops is the body of OpsPath: the facts, and every engram_* figure that /metrics
// exports at this moment, by metric name (a histogram as name_count and name_sum).
type Ops struct {
	Facts
	Metrics map[string][]Sample `json:"metrics"`
}

// Sample is one series of a metric.
type Sample struct {
	Labels map[string]string `json:"labels,omitempty"`
	Value  float64           `json:"value"`
}

// OpsHandler answers OpsPath from the facts (read once per request: auth mode can
// change while the process runs) and the registry /metrics reads. A registry that
// cannot be read is handed to fail, which answers in the API's error shape.
func OpsHandler(facts func() Facts, metrics prometheus.Gatherer, fail func(http.ResponseWriter, *http.Request, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		families, err := metrics.Gather()
		if err != nil && len(families) == 0 {
			fail(w, r, fmt.Errorf("console: read the metrics: %w", err))
			return
		}
		body := Ops{Facts: facts(), Metrics: samples(families)}
		secure(w)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_ = json.NewEncoder(w).Encode(body)
	})
}

// samples flattens the engram_* families into series; the Go runtime's and the
// process's own are left to /metrics.
func samples(families []*dto.MetricFamily) map[string][]Sample {
	out := map[string][]Sample{}
	for _, f := range families {
		name := f.GetName()
		if !strings.HasPrefix(name, "engram_") {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := labelsOf(m)
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				out[name] = append(out[name], Sample{labels, m.GetCounter().GetValue()})
			case dto.MetricType_GAUGE:
				out[name] = append(out[name], Sample{labels, m.GetGauge().GetValue()})
			case dto.MetricType_UNTYPED:
				out[name] = append(out[name], Sample{labels, m.GetUntyped().GetValue()})
			case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
				out[name+"_count"] = append(out[name+"_count"], Sample{labels, float64(m.GetHistogram().GetSampleCount())})
				out[name+"_sum"] = append(out[name+"_sum"], Sample{labels, m.GetHistogram().GetSampleSum()})
			case dto.MetricType_SUMMARY:
				out[name+"_count"] = append(out[name+"_count"], Sample{labels, float64(m.GetSummary().GetSampleCount())})
				out[name+"_sum"] = append(out[name+"_sum"], Sample{labels, m.GetSummary().GetSampleSum()})
			}
		}
	}
	for _, series := range out {
		sort.SliceStable(series, func(i, j int) bool { return labelKey(series[i].Labels) < labelKey(series[j].Labels) })
	}
	return out
}

func labelsOf(m *dto.Metric) map[string]string {
	if len(m.GetLabel()) == 0 {
		return nil
	}
	labels := make(map[string]string, len(m.GetLabel()))
	for _, l := range m.GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	return labels
}

func labelKey(labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k, v := range labels {
		keys = append(keys, k+"="+v)
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

package console

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

func get(t *testing.T, h http.Handler, path string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec
}

func TestHandler_servesThePageAtEveryConsoleAddress(t *testing.T) {
	t.Parallel()
	h := Handler()
	for _, path := range []string{"/console", "/console/", "/console/ops", "/console/users/alice", "/console/users/a%2Fb/traces", "/console/traces/01J"} {
		rec := get(t, h, path)
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
			t.Errorf("GET %s = %d %s", path, rec.Code, rec.Header().Get("Content-Type"))
			continue
		}
		if !strings.Contains(rec.Body.String(), `<script type="module" src="/console/assets/app.js">`) {
			t.Errorf("GET %s: the page does not load its module:\n%s", path, rec.Body.String())
		}
		if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") {
			t.Errorf("GET %s: Content-Security-Policy %q", path, csp)
		}
	}
}

func TestHandler_servesEveryAssetWithItsType(t *testing.T) {
	t.Parallel()
	h := Handler()
	want := map[string]string{".js": "text/javascript", ".css": "text/css"}
	err := fs.WalkDir(files, "assets", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rec := get(t, h, "/console/"+path)
		ext := path[strings.LastIndex(path, "."):]
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), want[ext]) {
			t.Errorf("GET /console/%s = %d %q", path, rec.Code, rec.Header().Get("Content-Type"))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if rec := get(t, h, "/console/assets/absent.js"); rec.Code != http.StatusNotFound {
		t.Errorf("an absent asset = %d, want 404", rec.Code)
	}
}

// The page shows stored text, which may be markup: no script may hand a string
// to the HTML parser, and nothing may come from another host.
func TestAssets_neverParseMarkupNorLoadFromElsewhere(t *testing.T) {
	t.Parallel()
	forbidden := []struct {
		name string
		re   *regexp.Regexp
	}{
		{"HTML parsing of a string", regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|DOMParser|createContextualFragment|srcdoc`)},
		{"code from a string", regexp.MustCompile(`\beval\(|new Function\(|setTimeout\(['"]`)},
		{"another host", regexp.MustCompile(`https?://|url\(|@import|//[a-z0-9.-]+\.[a-z]{2,}/`)},
	}
	err := fs.WalkDir(files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(files, path)
		if err != nil {
			return err
		}
		for _, f := range forbidden {
			if loc := f.re.FindIndex(body); loc != nil {
				t.Errorf("%s: %s: %q", path, f.name, body[loc[0]:loc[1]])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestOpsHandler_reportsTheFactsAndEngramFigures(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	calls := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "engram_llm_calls_total"}, []string{"stage", "outcome"})
	calls.WithLabelValues("extract", "ok").Add(3)
	calls.WithLabelValues("refine", "error").Inc()
	pending := prometheus.NewGauge(prometheus.GaugeOpts{Name: "engram_messages_pending"})
	pending.Set(7)
	latency := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "engram_search_duration_seconds"})
	latency.Observe(0.5)
	latency.Observe(0.25)
	reg.MustRegister(calls, pending, latency, collectors.NewGoCollector())

	facts := Facts{Version: "v1", Roles: []string{"api", "worker"}, VectorBackend: "local", Auth: "open"}
	rec := get(t, OpsHandler(func() Facts { return facts }, reg, func(http.ResponseWriter, *http.Request, error) { t.Fatal("the figures could not be read") }), OpsPath)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s = %d %s", OpsPath, rec.Code, rec.Body.String())
	}
	var got Ops
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Version != "v1" || strings.Join(got.Roles, ",") != "api,worker" || got.VectorBackend != "local" || got.Auth != "open" {
		t.Errorf("facts: %+v", got.Facts)
	}
	tests := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"engram_llm_calls_total", map[string]string{"stage": "extract", "outcome": "ok"}, 3},
		{"engram_llm_calls_total", map[string]string{"stage": "refine", "outcome": "error"}, 1},
		{"engram_messages_pending", nil, 7},
		{"engram_search_duration_seconds_count", nil, 2},
		{"engram_search_duration_seconds_sum", nil, 0.75},
	}
	for _, tc := range tests {
		found := false
		for _, s := range got.Metrics[tc.name] {
			if labelKey(s.Labels) == labelKey(tc.labels) {
				found = true
				if s.Value != tc.want {
					t.Errorf("%s%v = %v, want %v", tc.name, tc.labels, s.Value, tc.want)
				}
			}
		}
		if !found {
			t.Errorf("%s%v is missing from %v", tc.name, tc.labels, got.Metrics[tc.name])
		}
	}
	for name := range got.Metrics {
		if !strings.HasPrefix(name, "engram_") {
			t.Errorf("%s is not engram's: the runtime's figures stay on /metrics", name)
		}
	}
}

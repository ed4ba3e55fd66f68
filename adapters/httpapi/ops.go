package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"
)

// Dependency states in /readyz.
const (
	StateUp       = "up"
	StateDegraded = "degraded"
	StateDown     = "down"
	StateDisabled = "disabled"
)

// Check probes one dependency; nil means disabled. It returns nil when the
// dependency is up, an error made with Degraded when it answers but recent calls
// failed, any other error when it is down. The error's text is the detail /readyz
// shows.
type Check func(ctx context.Context) error

// Degraded marks a check's error as degraded rather than down.
func Degraded(err error) error { return degradedError{err} }

type degradedError struct{ error }

func (e degradedError) Unwrap() error { return e.error }

// Checks are the probes of /readyz. SQL is the truth store: the only one whose
// failure makes the process not ready, because every other dependency has a fallback.
type Checks struct {
	SQL, Redis, Vector, LLM, Embedder Check
}

// Readiness is /readyz's body.
type Readiness struct {
	Status   string `json:"status" enum:"ready,degraded,unready" doc:"unready (503) when SQL is down; degraded when any dependency is degraded or down; else ready."`
	SQL      string `json:"sql" enum:"up,degraded,down,disabled" doc:"The truth store: down when it does not answer, degraded while writes fail for want of space."`
	Redis    string `json:"redis" enum:"up,degraded,down,disabled"`
	Vector   string `json:"vector" enum:"up,degraded,down,disabled"`
	LLM      string `json:"llm" enum:"up,degraded,down,disabled" doc:"The extraction model, from its recent calls: degraded after a failure, down after three in a row, up after a success."`
	Embedder string `json:"embedder" enum:"up,degraded,down,disabled" doc:"The embedding model, from its recent calls and a probe."`
	// Details says, for each dependency that is not up, why: the last error and
	// when it happened.
	Details map[string]string `json:"details,omitempty" doc:"For each dependency that is degraded or down: how many calls failed in a row, when the last did, and its error."`
}

type readyOutput struct {
	Status int
	Body   Readiness
}

type healthOutput struct {
	Body struct {
		Status  string `json:"status" example:"ok"`
		Version string `json:"version" example:"v1.2.3" doc:"The version of the running binary (engram version)."`
	}
}

// RegisterOps adds /healthz (with Options.Version) and /readyz (no
// authentication: probes carry no data).
func RegisterOps(api *API, checks Checks) {
	describeTag(api.Root, "operations", "Probes for orchestrators; no API key needed, no data returned.")
	huma.Register(api.Root, huma.Operation{
		OperationID: "healthz", Method: http.MethodGet, Path: "/healthz",
		Summary: "The process is up", Tags: []string{"operations"},
		Description: "200 as long as the process serves HTTP; it checks no dependency (see /readyz).",
	}, func(ctx context.Context, _ *struct{}) (*healthOutput, error) {
		out := &healthOutput{}
		out.Body.Status, out.Body.Version = "ok", api.opts.Version
		return out, nil
	})

	huma.Register(api.Root, huma.Operation{
		OperationID: "readyz", Method: http.MethodGet, Path: "/readyz",
		Summary: "The state of each dependency", Tags: []string{"operations"},
		Description: "503 only when the truth store (SQL) is down; other dependencies degrade gracefully.",
		Responses:   map[string]*huma.Response{"503": {Description: "The truth store is down"}},
	}, func(ctx context.Context, _ *struct{}) (*readyOutput, error) {
		status, body := checks.Ready(ctx)
		return &readyOutput{Status: status, Body: body}, nil
	})
}

// Ready runs every probe at once (2 s for all of them) and says what /readyz
// answers: its HTTP status and body.
func (c Checks) Ready(ctx context.Context) (int, Readiness) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	names := []string{"sql", "redis", "vector", "llm", "embedder"}
	results := make([]probeResult, len(names))
	var wg sync.WaitGroup
	for i, check := range []Check{c.SQL, c.Redis, c.Vector, c.LLM, c.Embedder} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = probe(ctx, check)
		}()
	}
	wg.Wait()
	r := Readiness{SQL: results[0].state, Redis: results[1].state, Vector: results[2].state,
		LLM: results[3].state, Embedder: results[4].state}
	for i, res := range results {
		if res.detail != "" {
			if r.Details == nil {
				r.Details = map[string]string{}
			}
			r.Details[names[i]] = res.detail
		}
	}
	status := http.StatusOK
	switch {
	case r.SQL == StateDown || r.SQL == StateDisabled:
		status, r.Status = http.StatusServiceUnavailable, "unready"
	case len(r.Details) > 0:
		r.Status = "degraded"
	default:
		r.Status = "ready"
	}
	return status, r
}

// ProbeHandlers adds /healthz and /readyz, with the same bodies as the API's, to
// mux: the metrics address of a process without the api role serves them, so
// that an orchestrator probes a worker, indexer or scheduler as it probes an api.
func ProbeHandlers(mux *http.ServeMux, version string, checks Checks) {
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		var body healthOutput
		body.Body.Status, body.Body.Version = "ok", version
		writeProbe(w, http.StatusOK, body.Body)
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		status, body := checks.Ready(r.Context())
		writeProbe(w, status, body)
	})
}

func writeProbe(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

type probeResult struct {
	state  string
	detail string
}

func probe(ctx context.Context, c Check) probeResult {
	if c == nil {
		return probeResult{state: StateDisabled}
	}
	err := c(ctx)
	var degraded degradedError
	switch {
	case err == nil:
		return probeResult{state: StateUp}
	case errors.As(err, &degraded):
		return probeResult{state: StateDegraded, detail: clipDetail(err.Error())}
	}
	return probeResult{state: StateDown, detail: clipDetail(err.Error())}
}

// maxDetail bounds a dependency's detail: an error may quote a long response.
const maxDetail = 500

func clipDetail(s string) string {
	if r := []rune(s); len(r) > maxDetail {
		return string(r[:maxDetail]) + "…"
	}
	return s
}

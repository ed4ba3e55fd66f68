package httpapi

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"
)

// Dependency states in /readyz.
const (
	StateUp       = "up"
	StateDown     = "down"
	StateDisabled = "disabled"
)

// Check probes one dependency; nil means disabled.
type Check func(ctx context.Context) error

// Checks are the probes of /readyz. SQL is the truth store: the only one whose
// failure makes the process not ready, because every other dependency has a fallback.
type Checks struct {
	SQL, Redis, Vector, LLM, Embedder Check
}

// Readiness is /readyz's body.
type Readiness struct {
	Status   string `json:"status" enum:"ready,degraded,unready"`
	SQL      string `json:"sql" enum:"up,down,disabled"`
	Redis    string `json:"redis" enum:"up,down,disabled"`
	Vector   string `json:"vector" enum:"up,down,disabled"`
	LLM      string `json:"llm" enum:"up,down,disabled"`
	Embedder string `json:"embedder" enum:"up,down,disabled"`
}

type readyOutput struct {
	Status int
	Body   Readiness
}

type healthOutput struct {
	Body struct {
		Status string `json:"status" example:"ok"`
	}
}

// RegisterOps adds /healthz and /readyz (no authentication: probes carry no data).
func RegisterOps(api *API, checks Checks) {
	describeTag(api.Root, "operations", "Probes for orchestrators; no API key needed, no data returned.")
	huma.Register(api.Root, huma.Operation{
		OperationID: "healthz", Method: http.MethodGet, Path: "/healthz",
		Summary: "The process is up", Tags: []string{"operations"},
		Description: "200 as long as the process serves HTTP; it checks no dependency (see /readyz).",
	}, func(ctx context.Context, _ *struct{}) (*healthOutput, error) {
		out := &healthOutput{}
		out.Body.Status = "ok"
		return out, nil
	})

	huma.Register(api.Root, huma.Operation{
		OperationID: "readyz", Method: http.MethodGet, Path: "/readyz",
		Summary: "The state of each dependency", Tags: []string{"operations"},
		Description: "503 only when the truth store (SQL) is down; other dependencies degrade gracefully.",
		Responses:   map[string]*huma.Response{"503": {Description: "The truth store is down"}},
	}, func(ctx context.Context, _ *struct{}) (*readyOutput, error) {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		states := make([]string, 5)
		var wg sync.WaitGroup
		for i, c := range []Check{checks.SQL, checks.Redis, checks.Vector, checks.LLM, checks.Embedder} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				states[i] = probe(ctx, c)
			}()
		}
		wg.Wait()
		r := Readiness{SQL: states[0], Redis: states[1], Vector: states[2], LLM: states[3], Embedder: states[4]}
		out := &readyOutput{Status: http.StatusOK, Body: r}
		switch {
		case r.SQL != StateUp:
			out.Status, out.Body.Status = http.StatusServiceUnavailable, "unready"
		case r.Redis == StateDown || r.Vector == StateDown || r.LLM == StateDown || r.Embedder == StateDown:
			out.Body.Status = "degraded"
		default:
			out.Body.Status = "ready"
		}
		return out, nil
	})
}

func probe(ctx context.Context, c Check) string {
	if c == nil {
		return StateDisabled
	}
	if err := c(ctx); err != nil {
		return StateDown
	}
	return StateUp
}

package httpapi_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2/humatest"

	"engram/adapters/httpapi"
	"engram/app/auth"
)

func TestReadyz_degradedDependenciesSayWhy(t *testing.T) {
	t.Parallel()
	up := func(context.Context) error { return nil }
	degraded := func(msg string) httpapi.Check {
		return func(context.Context) error { return httpapi.Degraded(errors.New(msg)) }
	}
	down := func(msg string) httpapi.Check {
		return func(context.Context) error { return errors.New(msg) }
	}
	tests := []struct {
		name    string
		checks  httpapi.Checks
		status  int
		state   string
		states  map[string]string
		details map[string]string
	}{
		{"disk full: sql degraded, still serving reads",
			httpapi.Checks{SQL: degraded("database or disk is full"), Vector: up},
			200, "degraded", map[string]string{"sql": "degraded", "vector": "up"},
			map[string]string{"sql": "database or disk is full"}},
		{"embedder failing, llm down",
			httpapi.Checks{SQL: up, Embedder: degraded("1 call failed in a row"), LLM: down("3 calls failed in a row")},
			200, "degraded", map[string]string{"embedder": "degraded", "llm": "down", "redis": "disabled"},
			map[string]string{"embedder": "1 call failed in a row", "llm": "3 calls failed in a row"}},
		{"sql does not answer", httpapi.Checks{SQL: down("connection refused")},
			503, "unready", map[string]string{"sql": "down"}, map[string]string{"sql": "connection refused"}},
		{"everything up", httpapi.Checks{SQL: up, Embedder: up}, 200, "ready", map[string]string{"embedder": "up"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			api := httpapi.New(http.NewServeMux(), httpapi.Options{MaxBodyBytes: 1 << 20}, auth.New(auth.Options{Open: true}, nil, nil, nil))
			httpapi.RegisterOps(api, tt.checks)
			resp := humatest.Wrap(t, api.Root).Get("/readyz")
			r := decode[httpapi.Readiness](t, resp)
			got := map[string]string{"sql": r.SQL, "redis": r.Redis, "vector": r.Vector, "llm": r.LLM, "embedder": r.Embedder}
			if resp.Code != tt.status || r.Status != tt.state {
				t.Errorf("readyz = %d %q, want %d %q: %s", resp.Code, r.Status, tt.status, tt.state, resp.Body.String())
			}
			for dep, want := range tt.states {
				if got[dep] != want {
					t.Errorf("%s = %q, want %q", dep, got[dep], want)
				}
			}
			if len(r.Details) != len(tt.details) {
				t.Errorf("details = %v, want %v", r.Details, tt.details)
			}
			for dep, want := range tt.details {
				if !strings.Contains(r.Details[dep], want) {
					t.Errorf("details[%s] = %q, want it to contain %q", dep, r.Details[dep], want)
				}
			}
		})
	}
}

func TestHealthz_reportsTheVersion(t *testing.T) {
	t.Parallel()
	api := httpapi.New(http.NewServeMux(), httpapi.Options{MaxBodyBytes: 1 << 20, Version: "v1.2.3-test"}, auth.New(auth.Options{Open: true}, nil, nil, nil))
	httpapi.RegisterOps(api, httpapi.Checks{SQL: func(context.Context) error { return nil }})
	body := decode[struct{ Status, Version string }](t, humatest.Wrap(t, api.Root).Get("/healthz"))
	if body.Status != "ok" || body.Version != "v1.2.3-test" {
		t.Errorf("healthz = %+v", body)
	}
}

package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
)

// Bad input to the context call is a 422 naming the field; its traces are 404
// across tenants and for a user without one.
func TestContext_problemsNameTheField(t *testing.T) {
	t.Parallel()
	api, _ := newToolsHarness(t)
	for _, c := range []struct {
		name     string
		body     map[string]any
		location string
	}{
		{"no query", map[string]any{"query": ""}, "body.query"},
		{"a budget over the cap", map[string]any{"query": "q", "budget_chars": 100001}, "body.budget_chars"},
		{"an unknown section", map[string]any{"query": "q", "include": []string{"weather"}}, "body.include[0]"},
		{"an external score out of range", map[string]any{"query": "q", "external": []map[string]any{{"source": "kb", "text": "t", "score": 1.5}}}, "body.external[0].score"},
		{"an external item without source", map[string]any{"query": "q", "external": []map[string]any{{"source": "", "text": "t"}}}, "body.external[0].source"},
		{"a flow without a session", map[string]any{"query": "q", "flow_id": "f"}, "body.session_id"},
		{"a query of spaces", map[string]any{"query": "   "}, "body.query"},
	} {
		resp := api.Post("/v1/users/alice/context", acme, c.body)
		expectProblem(t, resp, http.StatusUnprocessableEntity, c.location)
	}

	api.Put("/v1/users/alice/memories/diet", acme, map[string]any{"type": "fact", "content": "Is vegetarian"})
	resp := api.Post("/v1/users/alice/context", acme, map[string]any{"query": "vegetarian"})
	if resp.Code != http.StatusOK {
		t.Fatalf("context: %d %s", resp.Code, resp.Body.String())
	}
	res := decode[struct {
		Prompt   string `json:"prompt"`
		TraceID  string `json:"trace_id"`
		Sections struct {
			Memories []struct {
				Key   string  `json:"key"`
				Score float64 `json:"score"`
			} `json:"memories"`
			RecentMessages []any `json:"recent_messages"`
		} `json:"sections"`
	}](t, resp)
	if len(res.Sections.Memories) != 1 || res.Sections.Memories[0].Key != "diet" || res.Sections.RecentMessages == nil || !strings.Contains(res.Prompt, "[跨会话记忆]") {
		t.Errorf("context %+v", res)
	}
	if p := expectProblem(t, api.Get("/v1/traces/"+res.TraceID, "Authorization: Bearer "+globexKey), http.StatusNotFound, ""); !strings.Contains(p.Detail, res.TraceID) {
		t.Errorf("another tenant's trace: %s", p.Detail)
	}
	if p := expectProblem(t, api.Get("/v1/users/bob/traces/latest", acme), http.StatusNotFound, ""); p.Detail != `trace of user "bob" not found` {
		t.Errorf("a user without traces: %q", p.Detail)
	}
	latest := decode[struct {
		ID          string         `json:"id"`
		UserID      string         `json:"user_id"`
		Items       []any          `json:"items"`
		TimingsMS   map[string]any `json:"timings_ms"`
		SourceCount map[string]int `json:"source_count"`
	}](t, api.Get("/v1/users/alice/traces/latest", acme))
	if latest.ID != res.TraceID || latest.UserID != "alice" || len(latest.Items) != 1 || latest.SourceCount["memories"] != 1 || latest.TimingsMS["total"] == nil {
		t.Errorf("latest %+v", latest)
	}
}

package httpapi_test

import (
	"net/http"
	"testing"
)

// A user's traces list newest first, page by next_before, never show another
// user's, and a limit out of range is a 422 naming it.
func TestTraceList_pagesNewestFirstAndValidatesLimit(t *testing.T) {
	t.Parallel()
	api, _ := newToolsHarness(t)
	var ids []string
	for _, q := range []string{"first", "second", "third"} {
		res := decode[struct {
			TraceID string `json:"trace_id"`
		}](t, api.Post("/v1/users/alice/context", acme, map[string]any{"query": q}))
		ids = append(ids, res.TraceID)
	}
	api.Post("/v1/users/bob/context", acme, map[string]any{"query": "bob's"})

	type page struct {
		Traces []struct {
			ID     string `json:"id"`
			UserID string `json:"user_id"`
			Query  string `json:"query"`
		} `json:"traces"`
		NextBefore string `json:"next_before"`
	}
	first := decode[page](t, api.Get("/v1/users/alice/traces?limit=2", acme))
	if len(first.Traces) != 2 || first.Traces[0].ID != ids[2] || first.Traces[0].Query != "third" || first.Traces[1].ID != ids[1] ||
		first.NextBefore != ids[1] {
		t.Fatalf("first page %+v, want %s then %s", first, ids[2], ids[1])
	}
	rest := decode[page](t, api.Get("/v1/users/alice/traces?limit=2&before="+first.NextBefore, acme))
	if len(rest.Traces) != 1 || rest.Traces[0].ID != ids[0] || rest.Traces[0].UserID != "alice" || rest.NextBefore != "" {
		t.Errorf("last page %+v, want only %s", rest, ids[0])
	}
	if none := decode[page](t, api.Get("/v1/users/carol/traces", acme)); none.Traces == nil || len(none.Traces) != 0 {
		t.Errorf("a user without traces: %+v", none)
	}
	for _, bad := range []string{"0", "101", "many"} {
		expectProblem(t, api.Get("/v1/users/alice/traces?limit="+bad, acme), http.StatusUnprocessableEntity, "query.limit")
	}
}

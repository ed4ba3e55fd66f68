package httpapi_test

import (
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2/humatest"

	"engram/adapters/httpapi"
	"engram/adapters/lexical"
	"engram/adapters/textanalysis"
	"engram/app/auth"
	"engram/app/memories"
	"engram/app/retrieval"
	"engram/domain/memory"
	"engram/test/fakeclock"
	"engram/test/teststore"
)

// newSearchHarness serves the memory and search operations over the SQLite
// stores, with the lexical index kept by the memory writes (no vectors configured).
func newSearchHarness(t *testing.T) humatest.TestAPI {
	t.Helper()
	clk := fakeclock.New(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	ids := &seqIDs{}
	stores := teststore.New(t)
	authn := auth.New(auth.Options{Configured: map[string]string{acmeKey: "acme", globexKey: "globex"}}, stores.APIKeys, clk, ids)
	api := httpapi.New(http.NewServeMux(), httpapi.Options{MaxBodyBytes: 1 << 20}, authn)
	an := textanalysis.New(textanalysis.Options{})
	store, lexicalStore := stores.IndexLexically(an), stores.Lexical
	httpapi.RegisterMemories(api, memories.New(store, clk, ids, memory.Policy{DefaultTTLDays: 180}))
	httpapi.RegisterSearch(api, retrieval.New(retrieval.Deps{Analyzer: an, Lexical: lexical.New(lexicalStore, lexical.Options{}), Memories: store, Clock: clk}, retrieval.Options{}))
	return humatest.Wrap(t, api.Root)
}

func TestSearch_200WithBreakdownAndFallback(t *testing.T) {
	t.Parallel()
	api := newSearchHarness(t)
	auth := "Authorization: Bearer " + acmeKey
	if resp := api.Put("/v1/users/alice/memories/coffee", auth, map[string]any{"type": "preference", "content": "Drinks oat milk flat whites"}); resp.Code != http.StatusCreated {
		t.Fatalf("save: %d %s", resp.Code, resp.Body.String())
	}
	resp := api.Post("/v1/users/alice/search", auth, map[string]any{"query": "what milk does alice drink"})
	if resp.Code != http.StatusOK {
		t.Fatalf("search: %d %s", resp.Code, resp.Body.String())
	}
	got := decode[httpapi.SearchResult](t, resp)
	if len(got.Items) != 1 || got.Items[0].Kind != "memory" || got.Items[0].Memory.Key != "coffee" {
		t.Fatalf("items = %+v, want the coffee memory", got.Items)
	}
	if got.ModeUsed != "lexical" || got.FallbackReason != "vectors_disabled" {
		t.Errorf("mode_used %q, fallback_reason %q; want lexical, vectors_disabled (auto with no vectors configured)", got.ModeUsed, got.FallbackReason)
	}
	b := got.Items[0].Breakdown
	if sum := b.Retrieval + b.Context + b.Importance + b.Confidence + b.Recency + b.ExactKey; b.Retrieval <= 0 || got.Items[0].Score <= 0 ||
		math.Abs(sum-got.Items[0].Score) > 1e-9 {
		t.Errorf("score %v with breakdown %+v", got.Items[0].Score, b)
	}
	// min_score drops what scores below it, and nothing else.
	resp = api.Post("/v1/users/alice/search", auth, map[string]any{"query": "what milk does alice drink", "min_score": got.Items[0].Score + 0.01})
	if got := decode[httpapi.SearchResult](t, resp); resp.Code != http.StatusOK || len(got.Items) != 0 {
		t.Errorf("min_score above the only item's score: %d %+v, want no items", resp.Code, got)
	}
	resp = api.Post("/v1/users/alice/search", auth, map[string]any{"query": "what milk does alice drink", "min_score": got.Items[0].Score})
	if got := decode[httpapi.SearchResult](t, resp); resp.Code != http.StatusOK || len(got.Items) != 1 {
		t.Errorf("min_score at the item's score: %d %+v, want it kept", resp.Code, got)
	}
	// Deleted: gone from search at once.
	if resp := api.Delete("/v1/users/alice/memories/coffee", auth); resp.Code != http.StatusNoContent {
		t.Fatalf("delete: %d", resp.Code)
	}
	resp = api.Post("/v1/users/alice/search", auth, map[string]any{"query": "oat milk", "mode": "lexical"})
	if got := decode[httpapi.SearchResult](t, resp); resp.Code != http.StatusOK || len(got.Items) != 0 || got.FallbackReason != "" {
		t.Errorf("after delete: %d %+v, want 200 with no items and no fallback", resp.Code, got)
	}
}

func TestSearch_anotherTenantsMemoriesNeverComeBack(t *testing.T) {
	t.Parallel()
	api := newSearchHarness(t)
	api.Put("/v1/users/alice/memories/coffee", "Authorization: Bearer "+acmeKey, map[string]any{"type": "preference", "content": "Drinks oat milk"})
	resp := api.Post("/v1/users/alice/search", "Authorization: Bearer "+globexKey, map[string]any{"query": "oat milk"})
	if got := decode[httpapi.SearchResult](t, resp); resp.Code != http.StatusOK || len(got.Items) != 0 {
		t.Errorf("globex sees %d %+v", resp.Code, got)
	}
	resp = api.Post("/v1/users/bob/search", "Authorization: Bearer "+acmeKey, map[string]any{"query": "oat milk"})
	if got := decode[httpapi.SearchResult](t, resp); resp.Code != http.StatusOK || len(got.Items) != 0 {
		t.Errorf("bob sees %d %+v", resp.Code, got)
	}
}

func TestSearch_4xxNamingTheField(t *testing.T) {
	t.Parallel()
	api := newSearchHarness(t)
	auth := "Authorization: Bearer " + acmeKey
	tests := []struct {
		name     string
		body     map[string]any
		status   int
		location string
	}{
		{"empty query", map[string]any{"query": " ", "mode": "auto"}, http.StatusUnprocessableEntity, "body.query"},
		{"no query", map[string]any{"mode": "lexical"}, http.StatusUnprocessableEntity, "body.query"},
		{"limit over 100", map[string]any{"query": "x", "limit": 101}, http.StatusUnprocessableEntity, "body.limit"},
		{"since after until", map[string]any{"query": "x", "since": "2026-01-02T00:00:00Z", "until": "2026-01-01T00:00:00Z"}, http.StatusUnprocessableEntity, "body.since"},
		{"unknown scope", map[string]any{"query": "x", "scope": "everything"}, http.StatusUnprocessableEntity, "body.scope"},
		{"unknown mode", map[string]any{"query": "x", "mode": "magic"}, http.StatusUnprocessableEntity, "body.mode"},
		{"unknown type", map[string]any{"query": "x", "types": []string{"gossip"}}, http.StatusUnprocessableEntity, "body.types"},
		{"full_inject over messages", map[string]any{"mode": "full_inject", "scope": "messages"}, http.StatusUnprocessableEntity, "body.scope"},
		{"bad time", map[string]any{"query": "x", "since": "yesterday"}, http.StatusUnprocessableEntity, "body.since"},
		{"min_score above 1", map[string]any{"query": "x", "min_score": 1.5}, http.StatusUnprocessableEntity, "body.min_score"},
		{"negative min_score", map[string]any{"query": "x", "min_score": -0.1}, http.StatusUnprocessableEntity, "body.min_score"},
	}
	for _, tt := range tests {
		resp := api.Post("/v1/users/alice/search", auth, tt.body)
		expectProblem(t, resp, tt.status, tt.location)
	}
	if resp := api.Post("/v1/users/alice/search", map[string]any{"query": "x"}); resp.Code != http.StatusUnauthorized {
		t.Errorf("without a key: %d, want 401", resp.Code)
	}
	expectProblem(t, api.Post("/v1/users/alice/search", auth, "{not json"), http.StatusBadRequest, "")
}

func TestSearch_fullInjectWithoutQuery(t *testing.T) {
	t.Parallel()
	api := newSearchHarness(t)
	auth := "Authorization: Bearer " + acmeKey
	for _, k := range []string{"a", "b", "c"} {
		api.Put("/v1/users/alice/memories/"+k, auth, map[string]any{"type": "fact", "content": "Fact " + k})
	}
	resp := api.Post("/v1/users/alice/search", auth, map[string]any{"mode": "full_inject"})
	got := decode[httpapi.SearchResult](t, resp)
	if resp.Code != http.StatusOK || len(got.Items) != 3 || got.ModeUsed != "full_inject" {
		t.Errorf("full_inject: %d %+v", resp.Code, got)
	}
}

package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2/humatest"

	"engram/adapters/httpapi"
	"engram/app/auth"
	"engram/app/memories"
	"engram/domain/memory"
	"engram/test/fakeclock"
	"engram/test/teststore"
)

// seqIDs makes sortable ids.
type seqIDs struct{ n atomic.Int64 }

func (s *seqIDs) New() string { return fmt.Sprintf("id%012d", s.n.Add(1)) }

type harness struct {
	api   humatest.TestAPI
	clock *fakeclock.Clock
}

const (
	acmeKey   = "acme-key-0123456789abcdef"
	globexKey = "globex-key-0123456789abcdef"
)

// newHarness serves the memory API on the real router with the SQLite stores. With
// keys, tenants authenticate; without, the server is in open mode.
func newHarness(t *testing.T, withKeys bool) *harness {
	t.Helper()
	clk := fakeclock.New(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	ids := &seqIDs{}
	opts := auth.Options{Open: true}
	if withKeys {
		opts = auth.Options{Configured: map[string]string{acmeKey: "acme", globexKey: "globex"}}
	}
	stores := teststore.New(t)
	authn := auth.New(opts, stores.APIKeys, clk, ids)
	api := httpapi.New(http.NewServeMux(), httpapi.Options{MaxBodyBytes: 1 << 20}, authn)
	httpapi.RegisterMemories(api, memories.New(stores.Memories, clk, ids, memory.Policy{DefaultTTLDays: 180}))
	httpapi.RegisterOps(api, httpapi.Checks{SQL: func(context.Context) error { return nil }})
	return &harness{api: humatest.Wrap(t, api.Root), clock: clk}
}

type problem struct {
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
	Errors []struct {
		Message  string `json:"message"`
		Location string `json:"location"`
	} `json:"errors"`
}

func decode[T any](t *testing.T, resp *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(resp.Body.Bytes(), &v); err != nil {
		t.Fatalf("decode %q: %v", resp.Body.String(), err)
	}
	return v
}

func expectProblem(t *testing.T, resp *httptest.ResponseRecorder, status int, location string) problem {
	t.Helper()
	if resp.Code != status {
		t.Fatalf("status %d, want %d: %s", resp.Code, status, resp.Body.String())
	}
	if ct := resp.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
		t.Errorf("content type %q, want application/problem+json", ct)
	}
	p := decode[problem](t, resp)
	if p.Detail == "" {
		t.Error("problem has no detail")
	}
	if location != "" {
		found := false
		for _, e := range p.Errors {
			found = found || e.Location == location
		}
		if !found {
			t.Errorf("no error at %s in %s", location, resp.Body.String())
		}
	}
	return p
}

func TestSave_createdThenReplaced(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	resp := h.api.Put("/v1/users/alice/memories/Food Likes", map[string]any{"type": "preference", "content": "Sichuan food"})
	if resp.Code != http.StatusCreated {
		t.Fatalf("first save: %d %s", resp.Code, resp.Body.String())
	}
	m := decode[httpapi.Memory](t, resp)
	if m.Key != "food-likes" || m.Importance != 3 || m.Confidence != 0.8 || m.Version != 1 || m.Vector.Status != "DIRTY" || m.Source.Channel != "tool" || m.ExpiresAt == nil {
		t.Errorf("saved memory: %+v", m)
	}

	resp = h.api.Put("/v1/users/alice/memories/food-likes", map[string]any{"type": "preference", "content": "Hunan food", "importance": 5, "ttl_days": 30})
	if resp.Code != http.StatusOK {
		t.Fatalf("replace: %d %s", resp.Code, resp.Body.String())
	}
	m = decode[httpapi.Memory](t, resp)
	if m.Content != "Hunan food" || m.Version != 2 || m.Importance != 5 || !m.ExpiresAt.Equal(h.clock.Now().AddDate(0, 0, 30)) {
		t.Errorf("replaced memory: %+v", m)
	}

	// The same content again writes nothing.
	resp = h.api.Put("/v1/users/alice/memories/food-likes", map[string]any{"type": "preference", "content": "Hunan food", "importance": 5})
	if resp.Code != http.StatusOK || decode[httpapi.Memory](t, resp).Version != 2 {
		t.Errorf("identical save changed the memory: %d %s", resp.Code, resp.Body.String())
	}
}

func TestSave_afterDeleteIsCreatedAgain(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	h.api.Put("/v1/users/alice/memories/k", map[string]any{"type": "fact", "content": "a"})
	if resp := h.api.Delete("/v1/users/alice/memories/k"); resp.Code != http.StatusNoContent {
		t.Fatalf("delete: %d", resp.Code)
	}
	if resp := h.api.Put("/v1/users/alice/memories/k", map[string]any{"type": "fact", "content": "b"}); resp.Code != http.StatusCreated {
		t.Errorf("save after delete: %d, want 201", resp.Code)
	}
}

func TestSave_badInputIs4xxNamingTheField(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	tests := []struct {
		name     string
		path     string
		body     any
		status   int
		location string
	}{
		{"wrong type", "/v1/users/alice/memories/k", map[string]any{"type": "profile", "content": "x"}, 422, "body.type"},
		{"1001 characters", "/v1/users/alice/memories/k", map[string]any{"type": "fact", "content": strings.Repeat("x", 1001)}, 422, "body.content"},
		{"1001 CJK characters", "/v1/users/alice/memories/k", map[string]any{"type": "fact", "content": strings.Repeat("记", 1001)}, 422, "body.content"},
		{"blank content", "/v1/users/alice/memories/k", map[string]any{"type": "fact", "content": "   "}, 422, "body.content"},
		{"importance 9", "/v1/users/alice/memories/k", map[string]any{"type": "fact", "content": "x", "importance": 9}, 422, "body.importance"},
		{"confidence 2", "/v1/users/alice/memories/k", map[string]any{"type": "fact", "content": "x", "confidence": 2}, 422, "body.confidence"},
		{"ttl negative", "/v1/users/alice/memories/k", map[string]any{"type": "fact", "content": "x", "ttl_days": -1}, 422, "body.ttl_days"},
		{"pinned not a boolean", "/v1/users/alice/memories/k", map[string]any{"type": "fact", "content": "x", "pinned": "yes"}, 422, "body.pinned"},
		{"unknown field", "/v1/users/alice/memories/k", map[string]any{"type": "fact", "content": "x", "colour": "red"}, 422, ""},
		{"missing content", "/v1/users/alice/memories/k", map[string]any{"type": "fact"}, 422, "body"},
		{"noise key", "/v1/users/alice/memories/weather-date_2026-11-30", map[string]any{"type": "fact", "content": "sunny"}, 422, "path.key"},
		{"key with nothing usable", "/v1/users/alice/memories/%2D%2D", map[string]any{"type": "fact", "content": "x"}, 422, "path.key"},
		{"key with a character it cannot keep", "/v1/users/alice/memories/c%2B%2B", map[string]any{"type": "fact", "content": "x"}, 422, "path.key"},
		{"key of 161 characters once normalised", "/v1/users/alice/memories/" + strings.Repeat("%E9%A5%AE", 161), map[string]any{"type": "fact", "content": "x"}, 422, "path.key"},
		{"user id of 129 characters", "/v1/users/" + strings.Repeat("u", 129) + "/memories/k", map[string]any{"type": "fact", "content": "x"}, 422, "path.user"},
		{"key of 513 characters", "/v1/users/alice/memories/" + strings.Repeat("k", 513), map[string]any{"type": "fact", "content": "x"}, 422, "path.key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expectProblem(t, h.api.Put(tt.path, tt.body), tt.status, tt.location)
		})
	}
}

func TestSave_malformedJSONIs400(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	resp := h.api.Put("/v1/users/alice/memories/k", "Content-Type: application/json", strings.NewReader(`{"type":"fact","content":`))
	expectProblem(t, resp, http.StatusBadRequest, "body")
}

func TestSave_oversizeBodyIs413(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	big := `{"type":"fact","content":"` + strings.Repeat("x", 2<<20) + `"}`
	resp := h.api.Put("/v1/users/alice/memories/k", "Content-Type: application/json", strings.NewReader(big))
	expectProblem(t, resp, http.StatusRequestEntityTooLarge, "")
}

func TestSave_configuredBodyLimitApplies(t *testing.T) {
	t.Parallel()
	api := httpapi.New(http.NewServeMux(), httpapi.Options{MaxBodyBytes: 4096}, auth.New(auth.Options{Open: true}, nil, nil, nil))
	clk := fakeclock.New(time.Now())
	httpapi.RegisterMemories(api, memories.New(teststore.New(t).Memories, clk, &seqIDs{}, memory.Policy{}))
	body := `{"type":"fact","content":"` + strings.Repeat("x", 900) + `","pad":"` + strings.Repeat("y", 4000) + `"}`
	resp := humatest.Wrap(t, api.Root).Put("/v1/users/alice/memories/k", "Content-Type: application/json", strings.NewReader(body))
	expectProblem(t, resp, http.StatusRequestEntityTooLarge, "")
}

func TestAppend_statuses(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	expectProblem(t, h.api.Post("/v1/users/alice/memories/nope/append", map[string]any{"content": "x"}), http.StatusNotFound, "")

	h.api.Put("/v1/users/alice/memories/k", map[string]any{"type": "fact", "content": strings.Repeat("a", 995)})
	resp := h.api.Post("/v1/users/alice/memories/k/append", map[string]any{"content": "bcd"})
	if resp.Code != http.StatusOK || decode[httpapi.Memory](t, resp).Content != strings.Repeat("a", 995)+"\nbcd" {
		t.Fatalf("append: %d %s", resp.Code, resp.Body.String())
	}
	p := expectProblem(t, h.api.Post("/v1/users/alice/memories/k/append", map[string]any{"content": "overflow"}), http.StatusUnprocessableEntity, "body.content")
	if !strings.Contains(p.Detail, "memory_save") {
		t.Errorf("overflow detail does not say what to do: %q", p.Detail)
	}
	expectProblem(t, h.api.Post("/v1/users/alice/memories/k/append", map[string]any{"content": ""}), http.StatusUnprocessableEntity, "body.content")
}

func TestDelete_twiceIs404(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	h.api.Put("/v1/users/alice/memories/k", map[string]any{"type": "fact", "content": "x"})
	if resp := h.api.Delete("/v1/users/alice/memories/k"); resp.Code != http.StatusNoContent || resp.Body.Len() != 0 {
		t.Fatalf("delete: %d %q", resp.Code, resp.Body.String())
	}
	expectProblem(t, h.api.Delete("/v1/users/alice/memories/k"), http.StatusNotFound, "")
	expectProblem(t, h.api.Get("/v1/users/alice/memories/k"), http.StatusNotFound, "")
	if resp := h.api.Get("/v1/users/alice/memories/k?include_inactive=true"); resp.Code != http.StatusOK || decode[httpapi.Memory](t, resp).Active {
		t.Errorf("include_inactive get: %d %s", resp.Code, resp.Body.String())
	}
}

func TestGet_expiredIs404(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	h.api.Put("/v1/users/alice/memories/k", map[string]any{"type": "fact", "content": "x", "ttl_days": 1})
	if resp := h.api.Get("/v1/users/alice/memories/k"); resp.Code != http.StatusOK {
		t.Fatalf("get: %d", resp.Code)
	}
	h.clock.Advance(25 * time.Hour)
	expectProblem(t, h.api.Get("/v1/users/alice/memories/k"), http.StatusNotFound, "")
}

func TestList_filtersAndPages(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	for i := 0; i < 5; i++ {
		h.api.Put(fmt.Sprintf("/v1/users/alice/memories/fact-%d", i), map[string]any{"type": "fact", "content": fmt.Sprintf("fact %d", i)})
	}
	h.api.Put("/v1/users/alice/memories/pref", map[string]any{"type": "preference", "content": "喜欢乌龙茶"})
	h.api.Put("/v1/users/bob/memories/other", map[string]any{"type": "fact", "content": "bob's"})

	var keys []string
	cursor := ""
	for pages := 0; pages < 10; pages++ {
		path := "/v1/users/alice/memories?limit=2"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		resp := h.api.Get(path)
		if resp.Code != http.StatusOK {
			t.Fatalf("list: %d %s", resp.Code, resp.Body.String())
		}
		page := decode[httpapi.MemoryList](t, resp)
		for _, m := range page.Items {
			keys = append(keys, m.Key)
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	if strings.Join(keys, ",") != "fact-0,fact-1,fact-2,fact-3,fact-4,pref" {
		t.Errorf("paged keys = %v", keys)
	}

	resp := h.api.Get("/v1/users/alice/memories?type=preference")
	if page := decode[httpapi.MemoryList](t, resp); len(page.Items) != 1 || page.Items[0].Key != "pref" {
		t.Errorf("type filter: %s", resp.Body.String())
	}
	resp = h.api.Get("/v1/users/alice/memories?q=%E4%B9%8C%E9%BE%99")
	if page := decode[httpapi.MemoryList](t, resp); len(page.Items) != 1 {
		t.Errorf("substring filter: %s", resp.Body.String())
	}
	expectProblem(t, h.api.Get("/v1/users/alice/memories?type=mood"), http.StatusUnprocessableEntity, "query.type")
	expectProblem(t, h.api.Get("/v1/users/alice/memories?limit=5000"), http.StatusUnprocessableEntity, "query.limit")
	expectProblem(t, h.api.Get("/v1/users/alice/memories?cursor=garbage!"), http.StatusUnprocessableEntity, "query.cursor")
}

func TestHistoryAndRevert(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	h.api.Put("/v1/users/alice/memories/city", map[string]any{"type": "fact", "content": "Lives in Wuhan"})
	h.clock.Advance(time.Minute)
	h.api.Put("/v1/users/alice/memories/city", map[string]any{"type": "fact", "content": "Lives in Shanghai"})
	h.clock.Advance(time.Minute)
	h.api.Delete("/v1/users/alice/memories/city")

	hist := decode[httpapi.MemoryHistory](t, h.api.Get("/v1/users/alice/memories/city/history"))
	if len(hist.Events) != 3 || hist.Events[0].Op != "ADD" || hist.Events[1].Op != "UPDATE" || hist.Events[2].Op != "DELETE" {
		t.Fatalf("history: %+v", hist)
	}
	if hist.Events[0].Before != nil || hist.Events[1].Before.Content != "Lives in Wuhan" || hist.Events[1].After.Content != "Lives in Shanghai" {
		t.Errorf("before/after: %+v", hist.Events)
	}

	resp := h.api.Post("/v1/users/alice/memories/city/revert", map[string]any{"event_id": hist.Events[0].ID})
	if resp.Code != http.StatusOK {
		t.Fatalf("revert: %d %s", resp.Code, resp.Body.String())
	}
	if m := decode[httpapi.Memory](t, resp); !m.Active || m.Content != "Lives in Wuhan" || m.Version != 4 {
		t.Errorf("reverted: %+v", m)
	}
	hist = decode[httpapi.MemoryHistory](t, h.api.Get("/v1/users/alice/memories/city/history"))
	if len(hist.Events) != 4 || hist.Events[3].Op != "REVERT" {
		t.Errorf("revert not recorded: %+v", hist.Events)
	}

	expectProblem(t, h.api.Get("/v1/users/alice/memories/never/history"), http.StatusNotFound, "")
	expectProblem(t, h.api.Post("/v1/users/alice/memories/city/revert", map[string]any{"event_id": "no-such-event"}), http.StatusNotFound, "")
	h.api.Put("/v1/users/alice/memories/other", map[string]any{"type": "fact", "content": "x"})
	expectProblem(t, h.api.Post("/v1/users/alice/memories/other/revert", map[string]any{"event_id": hist.Events[0].ID}), http.StatusUnprocessableEntity, "body.event_id")
	expectProblem(t, h.api.Post("/v1/users/bob/memories/city/revert", map[string]any{"event_id": hist.Events[0].ID}), http.StatusNotFound, "")
}

func TestAuth_keysAndTenants(t *testing.T) {
	t.Parallel()
	h := newHarness(t, true)
	bearer := func(k string) string { return "Authorization: Bearer " + k }

	resp := h.api.Get("/v1/users/alice/memories")
	expectProblem(t, resp, http.StatusUnauthorized, "")
	if resp.Header().Get("WWW-Authenticate") == "" {
		t.Error("401 without WWW-Authenticate")
	}
	expectProblem(t, h.api.Get("/v1/users/alice/memories", bearer("not-a-key-at-all-000")), http.StatusUnauthorized, "")
	expectProblem(t, h.api.Get("/v1/users/alice/memories", "Authorization: Basic YWxhZGRpbjpvcGVu"), http.StatusUnauthorized, "")

	if resp := h.api.Put("/v1/users/alice/memories/k", bearer(acmeKey), map[string]any{"type": "fact", "content": "acme's"}); resp.Code != http.StatusCreated {
		t.Fatalf("acme save: %d", resp.Code)
	}
	// Another tenant sees nothing: 404, never 403.
	expectProblem(t, h.api.Get("/v1/users/alice/memories/k", bearer(globexKey)), http.StatusNotFound, "")
	expectProblem(t, h.api.Delete("/v1/users/alice/memories/k", bearer(globexKey)), http.StatusNotFound, "")
	expectProblem(t, h.api.Get("/v1/users/alice/memories/k/history", bearer(globexKey)), http.StatusNotFound, "")
	if page := decode[httpapi.MemoryList](t, h.api.Get("/v1/users/alice/memories", bearer(globexKey))); len(page.Items) != 0 {
		t.Errorf("globex lists acme's memories: %+v", page)
	}
	// The same user id in another tenant is another user.
	if resp := h.api.Put("/v1/users/alice/memories/k", bearer(globexKey), map[string]any{"type": "fact", "content": "globex's"}); resp.Code != http.StatusCreated {
		t.Errorf("globex save: %d", resp.Code)
	}
	if m := decode[httpapi.Memory](t, h.api.Get("/v1/users/alice/memories/k", bearer(acmeKey))); m.Content != "acme's" {
		t.Errorf("acme's memory became %q", m.Content)
	}
	// Probes need no key.
	if resp := h.api.Get("/healthz"); resp.Code != http.StatusOK {
		t.Errorf("healthz: %d", resp.Code)
	}
}

func TestReadyz_503OnlyWhenSQLIsDown(t *testing.T) {
	t.Parallel()
	down := func(context.Context) error { return fmt.Errorf("down") }
	up := func(context.Context) error { return nil }
	tests := []struct {
		name   string
		checks httpapi.Checks
		status int
		state  string
	}{
		{"all up", httpapi.Checks{SQL: up, Vector: up}, 200, "ready"},
		{"vector down", httpapi.Checks{SQL: up, Vector: down}, 200, "degraded"},
		{"sql down", httpapi.Checks{SQL: down, Vector: up}, 503, "unready"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := httpapi.New(http.NewServeMux(), httpapi.Options{MaxBodyBytes: 1 << 20}, auth.New(auth.Options{Open: true}, nil, nil, nil))
			httpapi.RegisterOps(api, tt.checks)
			resp := humatest.Wrap(t, api.Root).Get("/readyz")
			r := decode[httpapi.Readiness](t, resp)
			if resp.Code != tt.status || r.Status != tt.state || r.Redis != "disabled" {
				t.Errorf("readyz: %d %+v", resp.Code, r)
			}
		})
	}
}

func TestUnknownRouteIsProblemJSON(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	expectProblem(t, h.api.Get("/v2/whatever"), http.StatusNotFound, "")
}

func TestOpenAPI_documentsEveryMemoryOperation(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	resp := h.api.Get("/openapi.json")
	if resp.Code != http.StatusOK {
		t.Fatalf("openapi: %d", resp.Code)
	}
	doc := decode[struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}](t, resp)
	if !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Errorf("openapi version %q", doc.OpenAPI)
	}
	for path, methods := range map[string][]string{
		"/v1/users/{user}/memories/{key}":         {"put", "get", "delete"},
		"/v1/users/{user}/memories/{key}/append":  {"post"},
		"/v1/users/{user}/memories":               {"get"},
		"/v1/users/{user}/memories/{key}/history": {"get"},
		"/v1/users/{user}/memories/{key}/revert":  {"post"},
	} {
		for _, m := range methods {
			if _, ok := doc.Paths[path][m]; !ok {
				t.Errorf("OpenAPI lacks %s %s", m, path)
			}
		}
	}
}

func TestSave_keysOfEveryScriptStayDistinct(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	for _, k := range []struct{ path, want, content string }{
		{"%E9%A5%AE%E9%A3%9Fa", "饮食a", "diet"},
		{"%E7%9D%A1%E7%9C%A0a", "睡眠a", "sleep"},
		{"Caf%C3%A9", "café", "a café"},
		{"caf", "caf", "no accent"},
	} {
		resp := h.api.Put("/v1/users/alice/memories/"+k.path, map[string]any{"type": "fact", "content": k.content})
		if resp.Code != http.StatusCreated || decode[httpapi.Memory](t, resp).Key != k.want {
			t.Errorf("save %s: %d %s, want 201 with key %q", k.path, resp.Code, resp.Body.String(), k.want)
		}
	}
	page := decode[httpapi.MemoryList](t, h.api.Get("/v1/users/alice/memories"))
	if len(page.Items) != 4 {
		t.Errorf("listed %d memories, want the 4 distinct keys: %+v", len(page.Items), page.Items)
	}
	if m := decode[httpapi.Memory](t, h.api.Get("/v1/users/alice/memories/%E9%A5%AE%E9%A3%9FA")); m.Content != "diet" {
		t.Errorf("饮食A read %q, want the memory of 饮食a", m.Content)
	}
}

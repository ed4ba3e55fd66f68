package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"engram/adapters/httpapi"
	"engram/app/auth"
	"engram/test/fakeclock"
	"engram/test/teststore"
)

type probeOutput struct {
	Body struct {
		Tenant string `json:"tenant"`
	}
}

// reachServer has a per-user probe and a tenant-wide one registered the way a
// later module would, without saying how it keeps to a user; it returns the
// handler, a tenant key and alice's key.
func reachServer(t *testing.T, rateLimit float64) (http.Handler, string, string) {
	t.Helper()
	clk := fakeclock.New(time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC))
	authn := auth.New(auth.Options{Configured: map[string]string{acmeKey: "acme"}}, teststore.New(t).APIKeys, clk, &seqIDs{})
	aliceKey, err := authn.CreateKey(context.Background(), "acme", "alice")
	if err != nil {
		t.Fatal(err)
	}
	api := httpapi.New(http.NewServeMux(), httpapi.Options{MaxBodyBytes: 1 << 20, RateLimit: rateLimit}, authn)
	probe := func(ctx context.Context, _ *struct{}) (*probeOutput, error) { return &probeOutput{}, nil }
	huma.Register(api.V1, huma.Operation{OperationID: "probe_user", Method: http.MethodGet, Path: "/users/{user}/probe"},
		func(ctx context.Context, in *struct{ httpapi.UserPath }) (*probeOutput, error) {
			return probe(ctx, nil)
		})
	huma.Register(api.V1, huma.Operation{OperationID: "probe_tenant", Method: http.MethodGet, Path: "/later"}, probe)
	return api.Handler(), acmeKey, aliceKey
}

func get(t *testing.T, h http.Handler, path, key string, headers ...string) (*httptest.ResponseRecorder, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var body map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &body)
	return rec, body
}

func TestReach_aUserScopedKeyReachesItsUserOnly(t *testing.T) {
	t.Parallel()
	h, tenantKey, aliceKey := reachServer(t, 0)
	cases := []struct {
		name, path, key string
		headers         []string
		want            int
		detail          string
	}{
		{"alice's key, alice", "/v1/users/alice/probe", aliceKey, nil, http.StatusOK, ""},
		{"alice's key, bob", "/v1/users/bob/probe", aliceKey, nil, http.StatusForbidden, "this API key reaches user alice only; it cannot act for bob"},
		{"alice's key, bob in a header", "/v1/users/alice/probe", aliceKey, []string{httpapi.UserHeader, "bob"}, http.StatusForbidden, "cannot act for bob"},
		{"alice's key, an operation that does not say how it keeps to a user", "/v1/later", aliceKey, nil, http.StatusForbidden,
			"GET /v1/later acts on the whole tenant: use a key created without --user"},
		{"the tenant key, bob", "/v1/users/bob/probe", tenantKey, nil, http.StatusOK, ""},
		{"the tenant key, the tenant-wide operation", "/v1/later", tenantKey, nil, http.StatusOK, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rec, body := get(t, h, c.path, c.key, c.headers...)
			if rec.Code != c.want {
				t.Fatalf("%d %s, want %d", rec.Code, rec.Body.String(), c.want)
			}
			if c.detail != "" && (!strings.Contains(body["detail"].(string), c.detail) || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/problem+json")) {
				t.Errorf("%s %v, want a problem saying %q", rec.Header().Get("Content-Type"), body, c.detail)
			}
		})
	}
}

func TestRateLimit_perKeyWithRetryAfter(t *testing.T) {
	t.Parallel()
	// 0.01 per second: one request, then one every 100 s.
	h, tenantKey, aliceKey := reachServer(t, 0.01)
	if rec, _ := get(t, h, "/v1/users/alice/probe", aliceKey); rec.Code != http.StatusOK {
		t.Fatalf("the first request: %d", rec.Code)
	}
	rec, body := get(t, h, "/v1/users/alice/probe", aliceKey)
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" || rec.Header().Get("Retry-After") == "0" ||
		!strings.Contains(body["detail"].(string), "0.01 requests per second") {
		t.Errorf("the second request: %d Retry-After %q %v", rec.Code, rec.Header().Get("Retry-After"), body)
	}
	if rec, _ := get(t, h, "/v1/users/bob/probe", tenantKey); rec.Code != http.StatusOK {
		t.Errorf("another key has its own bucket: %d", rec.Code)
	}
	if rec, _ := get(t, h, "/v1/users/alice/probe", "engram_not-a-key"); rec.Code != http.StatusUnauthorized {
		t.Errorf("a wrong key is refused as such, not rate limited: %d", rec.Code)
	}
}

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oklog/ulid/v2"

	"engram/test/testenv"
	"engram/test/wait"
)

// accessTenantKey is the configured tenant key of the access tests: with it the
// server never runs in open mode.
const accessTenantKey = "acme-tenant-key-0123456789abcdef"

// backendEnv is the environment of a server and of the command line on the same
// store: the embedded default, or a PostgreSQL database and a Redis prefix of the
// test's own.
func backendEnv(t *testing.T, postgres bool) []string {
	t.Helper()
	env := []string{"ENGRAM_DATA_DIR=" + t.TempDir()}
	if !postgres {
		return env
	}
	redisAddr := testenv.RedisAddr(t)
	prefix := "engram-e2e-" + strings.ToLower(ulid.Make().String())
	t.Cleanup(func() { _ = testenv.DeleteRedisPrefix(redisAddr, prefix) })
	return append(env, "ENGRAM_DATABASE_URL="+testenv.NewPostgresDatabase(t),
		"ENGRAM_REDIS_ADDR="+redisAddr, "ENGRAM_REDIS_KEY_PREFIX="+prefix)
}

func bearer(key string) []string { return []string{"Authorization", "Bearer " + key} }

func TestKeys_aUserScopedKeyReachesItsUserOnly(t *testing.T) {
	runUserScopedKey(t, false)
}

func TestKeys_aUserScopedKeyReachesItsUserOnly_Postgres_Redis(t *testing.T) {
	runUserScopedKey(t, true)
}

// A key created with --user alice reaches alice on every route and nobody else:
// a path or header naming bob is 403, bob's trace is 404, the listings show alice
// only, tenant-wide operations are 403, and over MCP the connection is pinned.
func runUserScopedKey(t *testing.T, postgres bool) {
	env := append(backendEnv(t, postgres), "ENGRAM_API_KEYS=acme="+accessTenantKey)
	srv := Start(t, env...)
	aliceKey := strings.TrimSpace(cli(t, env, "keys", "create", "--tenant", "acme", "--user", "alice"))
	tenant, alice := bearer(accessTenantKey), bearer(aliceKey)

	for _, user := range []string{"alice", "bob"} {
		if code := srv.Do(http.MethodPut, "/v1/users/"+user+"/memories/diet", map[string]any{"type": "fact", "content": user + " is vegetarian"}, nil, tenant...); code != http.StatusCreated {
			t.Fatalf("save %s's memory with the tenant key: %d", user, code)
		}
		if code := srv.Do(http.MethodPut, "/v1/org/users/"+user, map[string]any{"display_name": strings.ToUpper(user[:1]) + user[1:]}, nil, tenant...); code/100 != 2 {
			t.Fatalf("place %s in the org: %d", user, code)
		}
	}
	var bobContext struct {
		TraceID string `json:"trace_id"`
	}
	if code := srv.Do(http.MethodPost, "/v1/users/bob/context", map[string]any{"query": "what does bob eat"}, &bobContext, tenant...); code != http.StatusOK || bobContext.TraceID == "" {
		t.Fatalf("bob's context call: %d %+v", code, bobContext)
	}

	// Alice's own data: every route works.
	var diet struct {
		Content string `json:"content"`
	}
	if code := srv.Do(http.MethodGet, "/v1/users/alice/memories/diet", nil, &diet, alice...); code != http.StatusOK || diet.Content != "alice is vegetarian" {
		t.Errorf("alice's key reads alice's memory: %d %+v", code, diet)
	}
	if code := srv.Do(http.MethodPost, "/v1/users/alice/tools/memory_list", map[string]any{"arguments": map[string]any{}}, nil, alice...); code != http.StatusOK {
		t.Errorf("alice's key calls a tool for alice: %d", code)
	}

	// Another user, named anywhere: 403, whether the user exists or not.
	for _, c := range []struct {
		method, path string
		body         any
		headers      []string
	}{
		{http.MethodGet, "/v1/users/bob/memories", nil, nil},
		{http.MethodGet, "/v1/users/nobody/memories", nil, nil},
		{http.MethodPut, "/v1/users/bob/memories/planted", map[string]any{"type": "fact", "content": "obeys alice"}, nil},
		{http.MethodPost, "/v1/users/bob/search", map[string]any{"query": "vegetarian"}, nil},
		{http.MethodPost, "/v1/users/bob/tools/memory_list", map[string]any{"arguments": map[string]any{}}, nil},
		{http.MethodDelete, "/v1/users/bob", nil, nil},
		{http.MethodGet, "/v1/org/users/bob", nil, nil},
		{http.MethodGet, "/v1/users/alice/profile", nil, []string{"X-Acting-User", "bob"}},
	} {
		var p problemBody
		if code := srv.Do(c.method, c.path, c.body, &p, append(slices.Clone(alice), c.headers...)...); code != http.StatusForbidden ||
			!strings.Contains(p.Detail, "this API key reaches user alice only") {
			t.Errorf("%s %s %v with alice's key: %d %+v, want 403", c.method, c.path, c.headers, code, p)
		}
	}
	if code := srv.Do(http.MethodGet, "/v1/users/bob/memories/planted", nil, nil, tenant...); code != http.StatusNotFound {
		t.Errorf("the refused write stored bob's memory: %d", code)
	}
	// An object of another user reached by its id is not found, like another tenant's.
	if code := srv.Do(http.MethodGet, "/v1/traces/"+bobContext.TraceID, nil, nil, alice...); code != http.StatusNotFound {
		t.Errorf("bob's trace with alice's key: %d, want 404", code)
	}
	if code := srv.Do(http.MethodGet, "/v1/traces/"+bobContext.TraceID, nil, nil, tenant...); code != http.StatusOK {
		t.Errorf("bob's trace with the tenant key: %d", code)
	}
	// Operations of the whole tenant.
	for _, c := range []struct{ method, path string }{{http.MethodGet, "/v1/audit"}, {http.MethodPost, "/v1/admin/reindex"}} {
		var p problemBody
		if code := srv.Do(c.method, c.path, nil, &p, alice...); code != http.StatusForbidden || !strings.Contains(p.Detail, "acts on the whole tenant") {
			t.Errorf("%s %s with alice's key: %d %+v, want 403", c.method, c.path, code, p)
		}
	}

	// Listings show alice only; the tenant key sees both.
	listed := func(path string, key []string) []string {
		t.Helper()
		var page struct {
			Items []struct {
				UserID string `json:"user_id"`
			} `json:"items"`
		}
		if code := srv.Do(http.MethodGet, path, nil, &page, key...); code != http.StatusOK {
			t.Fatalf("GET %s: %d", path, code)
		}
		var ids []string
		for _, it := range page.Items {
			ids = append(ids, it.UserID)
		}
		return ids
	}
	for _, path := range []string{"/v1/users", "/v1/org/users", "/v1/org/users?name=Bob", "/v1/org/users?name=Alice"} {
		got, all := listed(path, alice), listed(path, tenant)
		for _, id := range got {
			if id != "alice" {
				t.Errorf("GET %s with alice's key lists %v", path, got)
			}
		}
		if path != "/v1/org/users?name=Bob" && !slices.Equal(got, []string{"alice"}) {
			t.Errorf("GET %s with alice's key: %v, want [alice]", path, got)
		}
		if path == "/v1/users" && !slices.Equal(all, []string{"alice", "bob"}) {
			t.Errorf("GET %s with the tenant key: %v", path, all)
		}
	}

	// MCP with alice's key and no header: pinned to alice.
	pinned := mcpOverHTTP(t, srv, map[string]string{"Authorization": "Bearer " + aliceKey})
	tools, err := pinned.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if schema, _ := json.Marshal(tool.InputSchema); strings.Contains(string(schema), `"user_id"`) {
			t.Errorf("%s offers user_id on a pinned connection: %s", tool.Name, schema)
		}
	}
	if text, isError := callTool(t, pinned, "memory_list", nil); isError || !strings.Contains(text, "alice is vegetarian") || strings.Contains(text, "bob") {
		t.Errorf("memory_list over alice's key: %v %s", isError, text)
	}
	if text, isError := callTool(t, pinned, "memory_search", map[string]any{"query": "vegetarian", "user_id": "bob", "mode": "lexical"}); !isError ||
		!strings.Contains(text, "this connection acts for user alice only") {
		t.Errorf("memory_search naming bob over alice's key: %v %s", isError, text)
	}
	if _, err := pinned.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "engram://users/bob/memories"}); err == nil {
		t.Error("alice's key read bob's memories resource")
	}
	resp := postMCPWith(t, srv, map[string]string{"Authorization": "Bearer " + aliceKey, "X-Engram-User": "bob"},
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if resp.status != http.StatusForbidden || !strings.Contains(resp.body, "this API key reaches user alice only") {
		t.Errorf("/mcp with alice's key and X-Engram-User bob: %d %s", resp.status, resp.body)
	}

	// Jobs: alice follows her own erasure to the end (when DONE it names her by a
	// fingerprint), never bob's.
	var bobJob, aliceJob struct {
		JobID string `json:"job_id"`
	}
	if code := srv.Do(http.MethodDelete, "/v1/users/bob", nil, &bobJob, tenant...); code != http.StatusAccepted {
		t.Fatalf("erase bob with the tenant key: %d", code)
	}
	if code := srv.Do(http.MethodGet, "/v1/jobs/"+bobJob.JobID, nil, nil, alice...); code != http.StatusNotFound {
		t.Errorf("bob's erasure job with alice's key: %d, want 404", code)
	}
	if code := srv.Do(http.MethodDelete, "/v1/users/alice", nil, &aliceJob, alice...); code != http.StatusAccepted {
		t.Fatalf("alice erases herself with her key: %d", code)
	}
	wait.Until(t, time.Minute, "alice's erasure to be DONE, followed with her key", func() bool {
		var job struct {
			Status string `json:"status"`
		}
		code := srv.Do(http.MethodGet, "/v1/jobs/"+aliceJob.JobID, nil, &job, alice...)
		if code != http.StatusOK {
			t.Fatalf("alice's erasure job with her key: %d", code)
		}
		return job.Status == "DONE"
	})

	list := cli(t, env, "keys", "list")
	lines := strings.Split(strings.TrimSpace(list), "\n")
	if len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != "ID TENANT USER CREATED LAST USED" ||
		strings.Fields(lines[1])[1] != "acme" || strings.Fields(lines[1])[2] != "alice" {
		t.Errorf("keys list:\n%s", list)
	}
	srv.Stop()
}

// postMCPWith posts one JSON-RPC message to /mcp with the given headers.
func postMCPWith(t *testing.T, srv *Server, h map[string]string, body []byte) mcpResponse {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.Base+"/mcp", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	_, _ = bufio.NewReader(resp.Body).WriteTo(&b)
	return mcpResponse{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), requestID: resp.Header.Get("X-Request-ID"), body: b.String()}
}

func TestKeys_theFirstRequestAfterARevokeIs401(t *testing.T) {
	runFirstRequestAfterRevoke(t, false)
}

// On PostgreSQL two servers share the store: both refuse the key at once.
func TestKeys_theFirstRequestAfterARevokeIs401_Postgres_Redis(t *testing.T) {
	runFirstRequestAfterRevoke(t, true)
}

func runFirstRequestAfterRevoke(t *testing.T, postgres bool) {
	// A cache TTL of an hour: only the key generation can tell the servers.
	env := append(backendEnv(t, postgres), "ENGRAM_API_KEYS=acme="+accessTenantKey, "ENGRAM_AUTH_CACHE_TTL_SEC=3600")
	servers := []*Server{Start(t, env...)}
	if postgres {
		servers = append(servers, Start(t, append(slices.Clone(env), "ENGRAM_ROLES=api")...))
	}
	key := strings.TrimSpace(cli(t, env, "keys", "create", "--tenant", "acme"))
	for i, srv := range servers {
		// Twice: the second is served from the server's cache.
		for range 2 {
			if code := srv.Do(http.MethodGet, "/v1/users/alice/memories", nil, nil, bearer(key)...); code != http.StatusOK {
				t.Fatalf("server %d before the revoke: %d", i, code)
			}
		}
	}
	fields := strings.Fields(strings.Split(strings.TrimSpace(cli(t, env, "keys", "list")), "\n")[1])
	if out := cli(t, env, "keys", "revoke", fields[0]); !strings.Contains(out, "every running server refuses it from its next request on") {
		t.Errorf("keys revoke said %q", out)
	}
	for i, srv := range servers {
		var p problemBody
		if code := srv.Do(http.MethodGet, "/v1/users/alice/memories", nil, &p, bearer(key)...); code != http.StatusUnauthorized {
			t.Errorf("server %d: the first request after the revoke got %d %+v, want 401", i, code, p)
		}
		if resp := postMCPWith(t, srv, map[string]string{"Authorization": "Bearer " + key, "X-Engram-User": "alice"},
			[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)); resp.status != http.StatusUnauthorized {
			t.Errorf("server %d: /mcp after the revoke got %d", i, resp.status)
		}
		if code := srv.Do(http.MethodGet, "/v1/users/alice/memories", nil, nil, bearer(accessTenantKey)...); code != http.StatusOK {
			t.Errorf("server %d: the configured key after the revoke: %d", i, code)
		}
	}
	for _, srv := range servers {
		srv.Stop()
	}
}

func TestHTTP_aSlowBodyIs408WithinTheDeadline(t *testing.T) {
	runSlowBody(t, false)
}

func TestHTTP_aSlowBodyIs408WithinTheDeadline_Postgres_Redis(t *testing.T) {
	runSlowBody(t, true)
}

// Headers, Content-Length: 100, then 7 bytes and silence: with a deadline of 1 s
// the server answers 408 problem+json on its own, on a REST route and on /mcp.
func runSlowBody(t *testing.T, postgres bool) {
	srv := Start(t, append(backendEnv(t, postgres), "ENGRAM_HTTP_BODY_TIMEOUT_SEC=1")...)
	host := strings.TrimPrefix(srv.Base, "http://")
	for _, path := range []string{"/v1/users/alice/memories/diet", "/mcp"} {
		method := http.MethodPut
		if path == "/mcp" {
			method = http.MethodPost
		}
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		head := method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\n" +
			"Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{\"type\""
		if _, err := conn.Write([]byte(head)); err != nil {
			t.Fatal(err)
		}
		// The configured 1 s must be what fires, not the default 30 s: 20 s leaves a
		// loaded machine its margin.
		_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%s %s: no answer to a slow body: %v", method, path, err)
		}
		var p problemBody
		_ = json.NewDecoder(resp.Body).Decode(&p)
		_ = resp.Body.Close()
		_ = conn.Close()
		if resp.StatusCode != http.StatusRequestTimeout || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/problem+json") ||
			p.Status != http.StatusRequestTimeout || !strings.Contains(p.Detail, "did not arrive in time") {
			t.Errorf("%s %s with a slow body: %d %s %+v, want a 408 problem", method, path, resp.StatusCode, resp.Header.Get("Content-Type"), p)
		}
	}
	// The server is fine afterwards, and a body sent whole is not cut by the deadline.
	if code := srv.Do(http.MethodPut, "/v1/users/alice/memories/diet", map[string]any{"type": "fact", "content": "Is vegetarian"}, nil); code != http.StatusCreated {
		t.Errorf("a whole body after the slow ones: %d", code)
	}
	srv.Stop()
}

func TestHTTP_aKeyOverItsRateLimitIs429(t *testing.T) {
	runRateLimit(t, false)
}

func TestHTTP_aKeyOverItsRateLimitIs429_Postgres_Redis(t *testing.T) {
	runRateLimit(t, true)
}

// ENGRAM_RATE_LIMIT_RPS=0.1 is one request, then one every ten seconds, per key:
// the second request of a key is a 429 problem with Retry-After, on REST and on
// /mcp, while another key is served.
func runRateLimit(t *testing.T, postgres bool) {
	const otherKey = "globex-tenant-key-0123456789abcdef"
	srv := Start(t, append(backendEnv(t, postgres), "ENGRAM_RATE_LIMIT_RPS=0.1",
		"ENGRAM_API_KEYS=acme="+accessTenantKey+",globex="+otherKey)...)
	if code := srv.Do(http.MethodGet, "/v1/users/alice/memories", nil, nil, bearer(accessTenantKey)...); code != http.StatusOK {
		t.Fatalf("the first request: %d", code)
	}
	req, _ := http.NewRequest(http.MethodGet, srv.Base+"/v1/users/alice/memories", nil)
	req.Header.Set("Authorization", "Bearer "+accessTenantKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var p problemBody
	_ = json.NewDecoder(resp.Body).Decode(&p)
	_ = resp.Body.Close()
	retry, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	if resp.StatusCode != http.StatusTooManyRequests || retry < 1 || retry > 10 ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "application/problem+json") || !strings.Contains(p.Detail, "0.1 requests per second") {
		t.Errorf("the second request: %d, Retry-After %q, %s %+v", resp.StatusCode, resp.Header.Get("Retry-After"), resp.Header.Get("Content-Type"), p)
	}
	if r := postMCPWith(t, srv, map[string]string{"Authorization": "Bearer " + accessTenantKey, "X-Engram-User": "alice"},
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)); r.status != http.StatusTooManyRequests {
		t.Errorf("/mcp over the limit: %d %s", r.status, r.body)
	}
	if code := srv.Do(http.MethodGet, "/v1/users/alice/memories", nil, nil, bearer(otherKey)...); code != http.StatusOK {
		t.Errorf("another key: %d", code)
	}
	if code := srv.Do(http.MethodGet, "/healthz", nil, nil); code != http.StatusOK {
		t.Errorf("/healthz is not limited: %d", code)
	}
	srv.Stop()
}

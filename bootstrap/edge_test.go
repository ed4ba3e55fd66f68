package bootstrap

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/fx/fxtest"

	"engram/bootstrap/config"
	"engram/test/testenv"
)

// startServer runs every role of engram on a free port with the given settings and
// returns the address it listens on.
func startServer(t *testing.T, env ...string) string {
	t.Helper()
	addr := freeAddr(t)
	cfg, err := config.Load("", append([]string{"ENGRAM_DATA_DIR=" + t.TempDir(), "ENGRAM_HTTP_ADDR=" + addr,
		"ENGRAM_LOG_LEVEL=error", "ENGRAM_LOCAL_EMBEDDING_DIM=64"}, env...))
	if err != nil {
		t.Fatal(err)
	}
	app := fxtest.New(t, appOptions(cfg))
	app.RequireStart()
	t.Cleanup(app.RequireStop)
	return addr
}

type edgeCase struct {
	name, method, path, body string
	status                   int
	location                 string // of the problem's error, when there is one
}

// badInputCases are the requests that answered 500 (NUL reached the driver), or
// stored U+FFFD with a 201, or accepted impossible times, before the edge checked
// its input. Each must now be a 4xx naming what to fix, and store nothing.
var badInputCases = []edgeCase{
	{"NUL in memory content", "PUT", "/v1/users/u/memories/k", `{"type":"fact","content":"a\u0000b"}`, 422, "body.content"},
	{"invalid UTF-8 in memory content", "PUT", "/v1/users/u/memories/k", "{\"type\":\"fact\",\"content\":\"caf\xe9 au lait\"}", 422, "body.content"},
	{"a lone surrogate in memory content", "PUT", "/v1/users/u/memories/k", `{"type":"fact","content":"x\udc00"}`, 422, "body.content"},
	{"NUL in message content", "POST", "/v1/users/u/messages", `{"conversation_id":"c","role":"user","content":"\u0000"}`, 422, "body.content"},
	{"invalid UTF-8 in message content", "POST", "/v1/users/u/messages", "{\"conversation_id\":\"c\",\"role\":\"user\",\"content\":\"\xff\xfe\"}", 422, "body.content"},
	{"NUL in a speaker's name", "POST", "/v1/users/u/messages", `{"conversation_id":"c","role":"user","name":"Ann\u0000","content":"hi"}`, 422, "body.name"},
	{"NUL in a batch item", "POST", "/v1/users/u/messages:batch", `{"messages":[{"conversation_id":"c","role":"user","content":"ok"},{"conversation_id":"c","role":"user","content":"a\u0000"}]}`, 422, "body.messages[1].content"},
	{"NUL in a revert event_id", "POST", "/v1/users/u/memories/k/revert", `{"event_id":"01\u0000"}`, 422, "body.event_id"},
	{"NUL in a list q", "GET", "/v1/users/u/memories?q=%00", "", 422, "query.q"},
	{"NUL in a cursor", "GET", "/v1/users/u/memories?cursor=az%00", "", 422, "query.cursor"},
	{"NUL in a job id", "GET", "/v1/jobs/01%00", "", 422, "path.job_id"},
	{"NUL in a search query", "POST", "/v1/users/u/search", `{"query":"\u0000tea"}`, 422, "body.query"},
	{"NUL in a conversation filter", "POST", "/v1/users/u/search", `{"query":"tea","scope":"messages","conversation_id":"c\u0000"}`, 422, "body.conversation_id"},
	{"NUL in a user id", "PUT", "/v1/users/u%00/memories/k", `{"type":"fact","content":"x"}`, 422, "path.user"},
	{"a user id of spaces", "PUT", "/v1/users/%20/memories/k", `{"type":"fact","content":"x"}`, 422, "path.user"},
	{"a conversation id of spaces", "POST", "/v1/users/u/messages", `{"conversation_id":" ","role":"user","content":"hi"}`, 422, "body.conversation_id"},
	{"a message id of spaces", "POST", "/v1/users/u/messages", `{"conversation_id":"c","message_id":"  ","role":"user","content":"hi"}`, 422, "body.message_id"},
	{"a message said in year 1", "POST", "/v1/users/u/messages", `{"conversation_id":"c","role":"user","content":"hi","created_at":"0001-01-01T00:00:00Z"}`, 422, "body.created_at"},
	{"a message said in 2999", "POST", "/v1/users/u/messages", `{"conversation_id":"c","role":"user","content":"hi","created_at":"2999-12-31T00:00:00Z"}`, 422, "body.created_at"},
	{"a wrong method on a known path", "POST", "/v1/users/u/memories", `{}`, 405, ""},
	{"a key that would have collided", "PUT", "/v1/users/u/memories/c%2B%2B", `{"type":"fact","content":"x"}`, 422, "path.key"},
}

func runBadInputCases(t *testing.T, addr string) {
	t.Helper()
	for _, tc := range badInputCases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, "http://"+addr+tc.path, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Request-ID", "edge-case")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			var p struct {
				RequestID string `json:"request_id"`
				Errors    []struct {
					Location string `json:"location"`
				} `json:"errors"`
			}
			if err := json.Unmarshal(body, &p); err != nil || p.RequestID != "edge-case" {
				t.Fatalf("not a problem with the request id: %s (%v)", body, err)
			}
			if tc.location == "" {
				return
			}
			for _, e := range p.Errors {
				if e.Location == tc.location {
					return
				}
			}
			t.Errorf("no error at %s: %s", tc.location, body)
		})
	}
	// Nothing of it was stored.
	for _, path := range []string{"/v1/users/u/memories?include_inactive=true", "/v1/users/u/messages/m"} {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if (resp.StatusCode == http.StatusOK && !strings.Contains(string(body), `"items":[]`)) || resp.StatusCode >= 500 {
			t.Errorf("GET %s after the bad requests: %d %s", path, resp.StatusCode, body)
		}
	}
	runBrokenBodies(t, addr)
}

// runBrokenBodies sends what an HTTP client library will not: a malformed chunked
// body (400, was a 500) and a declared length over the limit with Expect:
// 100-continue (413 before the body is asked for).
func runBrokenBodies(t *testing.T, addr string) {
	t.Helper()
	head := "PUT /v1/users/u/memories/k HTTP/1.1\r\nHost: engram\r\nContent-Type: application/json\r\n"
	for _, tc := range []struct{ name, request, status string }{
		{"malformed chunked body", head + "Transfer-Encoding: chunked\r\n\r\n4\r\n{\"ty\r\nq!\r\n", "HTTP/1.1 400 Bad Request"},
		{"Expect: 100-continue over the limit", head + "Content-Length: 52428800\r\nExpect: 100-continue\r\n\r\n", "HTTP/1.1 413 Request Entity Too Large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, tc.request); err != nil {
				t.Fatal(err)
			}
			_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			status, err := bufio.NewReader(conn).ReadString('\n')
			if err != nil {
				t.Fatalf("no answer: %v", err)
			}
			if got := strings.TrimSpace(status); got != tc.status {
				t.Errorf("first line %q, want %q", got, tc.status)
			}
		})
	}
}

func TestEdge_badInputIsA4xxAndStoresNothing(t *testing.T) {
	t.Parallel()
	runBadInputCases(t, startServer(t))
}

func TestEdge_badInputIsA4xxAndStoresNothing_Postgres(t *testing.T) {
	t.Parallel()
	runBadInputCases(t, startServer(t, "ENGRAM_DATABASE_URL="+testenv.NewPostgresDatabase(t)))
}

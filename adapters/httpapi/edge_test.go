package httpapi_test

import (
	"context"
	"encoding/json"
	lexicalsearch "engram/adapters/lexical"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"engram/adapters/httpapi"
	"engram/adapters/sqlstore"
	"engram/adapters/textanalysis"
	"engram/app/auth"
	"engram/app/lifecycle"
	"engram/app/memories"
	"engram/app/messages"
	"engram/app/retrieval"
	"engram/domain/memory"
	"engram/ports"
	"engram/test/fakeclock"
	"engram/test/logbuf"
	"engram/test/teststore"
)

// syncBuffer is a log sink the server's goroutines may write while a test reads.
type syncBuffer struct{ logbuf.Buffer }

// lines returns the JSON log records written so far.
func (b *syncBuffer) lines(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if line == "" {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q is not JSON: %v", line, err)
		}
		out = append(out, rec)
	}
	return out
}

// edgeServer serves every operation over the SQLite stores, with keys, and logs
// JSON into logs.
type edgeServer struct {
	handler  http.Handler
	logs     *syncBuffer
	memories *sqlstore.MemoryStore
	messages *sqlstore.MessageStore
}

func newEdgeServer(t testing.TB, reindexErr error) *edgeServer {
	t.Helper()
	logs := &syncBuffer{}
	log := slog.New(httpapi.WithRequestIDs(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	clk := fakeclock.New(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	ids := &seqIDs{}
	stores := teststore.New(t)
	authn := auth.New(auth.Options{Configured: map[string]string{acmeKey: "acme"}}, stores.APIKeys, clk, ids)
	api := httpapi.New(http.NewServeMux(), httpapi.Options{MaxBodyBytes: 1 << 20, Logger: log}, authn)
	an := textanalysis.New(textanalysis.Options{})
	mem, lexical := stores.IndexLexically(an), stores.Lexical
	httpapi.RegisterMemories(api, memories.New(mem, clk, ids, memory.Policy{DefaultTTLDays: 180}))
	msgs := stores.Messages
	httpapi.RegisterMessages(api, messages.New(msgs, clk, ids, messages.Options{Debounce: time.Second}))
	httpapi.RegisterLifecycle(api, lifecycle.New(stores.Jobs, mem, stores.Jobs, clk, ids, lifecycle.Options{}))
	httpapi.RegisterSearch(api, retrieval.New(retrieval.Deps{Analyzer: an, Lexical: lexicalsearch.New(lexical, lexicalsearch.Options{}), Memories: mem, Clock: clk}, retrieval.Options{}))
	httpapi.RegisterAdmin(api, &recordingReindexer{err: reindexErr})
	httpapi.RegisterOps(api, httpapi.Checks{SQL: func(context.Context) error { return nil }})
	return &edgeServer{handler: api.Handler(), logs: logs, memories: mem, messages: msgs}
}

// do sends a raw body with the given headers ("Name: value") and the API key.
func (s *edgeServer) do(t *testing.T, method, path, body string, headers ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+acmeKey)
	for _, h := range headers {
		name, value, _ := strings.Cut(h, ": ")
		req.Header.Set(name, value)
	}
	rec := httptest.NewRecorder()
	s.handler.ServeHTTP(rec, req)
	return rec
}

type problemWithID struct {
	problem
	RequestID string `json:"request_id"`
	Errors    []struct {
		Message  string `json:"message"`
		Location string `json:"location"`
		Value    any    `json:"value"`
	} `json:"errors"`
}

func TestRequestID_acceptedOrReplacedEchoedAndInEveryProblem(t *testing.T) {
	t.Parallel()
	s := newEdgeServer(t, nil)
	tests := []struct {
		name, method, path, body string
		status                   int
		headers                  []string
	}{
		{"a 404 of the mux", "GET", "/v2/nothing", "", 404, nil},
		{"a 405 of the mux", "POST", "/v1/users/u/memories", "{}", 405, nil},
		{"a 401 of the auth middleware", "GET", "/v1/users/u/memories", "", 401, []string{"Authorization: Bearer wrong-key-0123456789"}},
		{"a 422 of huma's validation", "PUT", "/v1/users/u/memories/k", `{"type":"mood","content":"x"}`, 422, nil},
		{"a 422 of the hygiene", "PUT", "/v1/users/u/memories/k", `{"type":"fact","content":"a\u0000b"}`, 422, nil},
		{"a 400 of huma's parser", "PUT", "/v1/users/u/memories/k", `{"type":`, 400, nil},
		{"a 404 of a use case", "GET", "/v1/users/u/memories/nope", "", 404, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, sent := range []struct{ id, want string }{
				{"client-id_1.2:3", "client-id_1.2:3"},
				{"has spaces in it", ""},
				{strings.Repeat("x", 129), ""},
				{"", ""},
			} {
				headers := tt.headers
				if sent.id != "" {
					headers = append(headers[:len(headers):len(headers)], "X-Request-ID: "+sent.id)
				}
				resp := s.do(t, tt.method, tt.path, tt.body, headers...)
				if resp.Code != tt.status {
					t.Fatalf("status %d, want %d: %s", resp.Code, tt.status, resp.Body.String())
				}
				echoed := resp.Header().Get("X-Request-ID")
				switch {
				case sent.want != "" && echoed != sent.want:
					t.Errorf("sent %q, echoed %q", sent.id, echoed)
				case sent.want == "" && (len(echoed) != 26 || echoed == sent.id):
					t.Errorf("sent %q, echoed %q; want a fresh 26-character id", sent.id, echoed)
				}
				p := decode[problemWithID](t, resp)
				if p.RequestID != echoed {
					t.Errorf("problem request_id %q, header %q: %s", p.RequestID, echoed, resp.Body.String())
				}
			}
		})
	}
	// A success echoes it too.
	if resp := s.do(t, "GET", "/v1/users/u/memories", "", "X-Request-ID: ok-1"); resp.Code != 200 || resp.Header().Get("X-Request-ID") != "ok-1" {
		t.Errorf("success: %d, X-Request-ID %q", resp.Code, resp.Header().Get("X-Request-ID"))
	}
}

func TestAccessLog_oneLinePerRequestWithTheRoutePatternNeverTheBody(t *testing.T) {
	t.Parallel()
	s := newEdgeServer(t, nil)
	resp := s.do(t, "PUT", "/v1/users/alice/memories/secret-key", `{"type":"fact","content":"my very private content"}`, "X-Request-ID: req-42")
	if resp.Code != http.StatusCreated {
		t.Fatalf("save: %d %s", resp.Code, resp.Body.String())
	}
	s.do(t, "GET", "/healthz", "")
	var access []map[string]any
	for _, rec := range s.logs.lines(t) {
		if rec["msg"] == "http request" {
			access = append(access, rec)
		}
	}
	if len(access) != 2 {
		t.Fatalf("%d access lines, want one per request: %v", len(access), access)
	}
	want := map[string]any{"level": "INFO", "method": "PUT", "route": "/v1/users/{user}/memories/{key}", "status": float64(201),
		"tenant": "acme", "request_id": "req-42"}
	for k, v := range want {
		if access[0][k] != v {
			t.Errorf("access line %s = %v, want %v: %v", k, access[0][k], v, access[0])
		}
	}
	if _, ok := access[0]["duration_ms"].(float64); !ok {
		t.Errorf("no duration_ms: %v", access[0])
	}
	line, _ := json.Marshal(access[0])
	for _, private := range []string{"alice", "secret-key", "private content"} {
		if strings.Contains(string(line), private) {
			t.Errorf("the access line holds %q: %s", private, line)
		}
	}
	if access[1]["route"] != "/healthz" || access[1]["level"] != "DEBUG" {
		t.Errorf("a probe's line: %v, want route /healthz at DEBUG", access[1])
	}
}

func TestInternalError_givesOnlyTheRequestIDAndLogsTheCause(t *testing.T) {
	t.Parallel()
	s := newEdgeServer(t, errors.New("disk on fire"))
	resp := s.do(t, "POST", "/v1/admin/reindex", "", "X-Request-ID: req-500")
	p := expectProblem(t, resp, http.StatusInternalServerError, "")
	if p.Detail != "internal error; request id req-500" {
		t.Errorf("detail %q", p.Detail)
	}
	if strings.Contains(resp.Body.String(), "disk on fire") {
		t.Errorf("the cause reached the client: %s", resp.Body.String())
	}
	found := false
	for _, rec := range s.logs.lines(t) {
		found = found || (rec["level"] == "ERROR" && rec["request_id"] == "req-500" && strings.Contains(rec["error"].(string), "disk on fire"))
	}
	if !found {
		t.Errorf("no ERROR line with the cause and request id: %v", s.logs.lines(t))
	}
}

func TestWrongMethodOnAKnownPath_is405WithAllow(t *testing.T) {
	t.Parallel()
	s := newEdgeServer(t, nil)
	tests := []struct{ method, path, allow string }{
		{"POST", "/v1/users/u/memories", "GET, HEAD"},
		{"GET", "/v1/users/u/search", "POST"},
		{"POST", "/v1/users/u/memories/k", "GET, HEAD, PUT, PATCH, DELETE"},
		{"DELETE", "/healthz", "GET, HEAD"},
	}
	for _, tt := range tests {
		resp := s.do(t, tt.method, tt.path, "{}")
		p := expectProblem(t, resp, http.StatusMethodNotAllowed, "")
		if got := resp.Header().Get("Allow"); got != tt.allow {
			t.Errorf("%s %s: Allow %q, want %q", tt.method, tt.path, got, tt.allow)
		}
		if !strings.Contains(p.Detail, tt.method+" is not allowed") {
			t.Errorf("%s %s: detail %q", tt.method, tt.path, p.Detail)
		}
	}
	expectProblem(t, s.do(t, "POST", "/v1/users/u/nothing-here", "{}"), http.StatusNotFound, "")
}

func TestUnsupportedMediaType_saysToSendJSON(t *testing.T) {
	t.Parallel()
	s := newEdgeServer(t, nil)
	resp := s.do(t, "PUT", "/v1/users/u/memories/k", "type=fact", "Content-Type: text/plain")
	p := expectProblem(t, resp, http.StatusUnsupportedMediaType, "")
	if !strings.Contains(p.Detail, "Content-Type: application/json") {
		t.Errorf("detail %q does not say to send application/json", p.Detail)
	}
}

func TestProblems_clipOffendingValues(t *testing.T) {
	t.Parallel()
	s := newEdgeServer(t, nil)
	huge := strings.Repeat("秘", 300_000) // 900 KB of private text
	tests := []struct{ name, method, path, body string }{
		{"a field over its limit", "PUT", "/v1/users/u/memories/k", `{"type":"fact","content":"` + huge + `"}`},
		{"a field with NUL", "PUT", "/v1/users/u/memories/k", `{"type":"fact","content":"` + huge[:3000] + `\u0000"}`},
		{"malformed JSON", "PUT", "/v1/users/u/memories/k", `{"type":"fact","content":"` + huge + `"`},
		{"a key over its limit", "PUT", "/v1/users/u/memories/" + strings.Repeat("k", 500), `{"type":"fact","content":"x"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp := s.do(t, tt.method, tt.path, tt.body)
			if resp.Code < 400 || resp.Code >= 500 {
				t.Fatalf("status %d: %.300s", resp.Code, resp.Body.String())
			}
			if resp.Body.Len() > 4000 {
				t.Fatalf("a %d-byte problem for a %d-byte request: %.300s…", resp.Body.Len(), len(tt.body), resp.Body.String())
			}
			p := decode[problemWithID](t, resp)
			for _, e := range p.Errors {
				if v, ok := e.Value.(string); ok && len([]rune(v)) > 250 {
					t.Errorf("value of %d characters at %s", len([]rune(v)), e.Location)
				}
			}
		})
	}
}

func TestNotFound_namesTheObjectNeverALayer(t *testing.T) {
	t.Parallel()
	s := newEdgeServer(t, nil)
	s.do(t, "PUT", "/v1/users/u/memories/city", `{"type":"fact","content":"Wuhan"}`)
	tests := []struct{ method, path, body, detail string }{
		{"GET", "/v1/users/u/memories/diet", "", `memory "diet" not found`},
		{"DELETE", "/v1/users/u/memories/Diet", "", `memory "diet" not found`},
		{"POST", "/v1/users/u/memories/diet/append", `{"content":"x"}`, `memory "diet" not found`},
		{"GET", "/v1/users/u/memories/diet/history", "", `memory "diet" not found`},
		{"POST", "/v1/users/u/memories/city/revert", `{"event_id":"e404"}`, `event "e404" not found`},
		{"GET", "/v1/users/u/messages/m1", "", `message "m1" not found`},
		{"GET", "/v1/jobs/01JOBNOTTHERE", "", `job "01JOBNOTTHERE" not found`},
	}
	for _, tt := range tests {
		p := expectProblem(t, s.do(t, tt.method, tt.path, tt.body), http.StatusNotFound, "")
		if p.Detail != tt.detail {
			t.Errorf("%s %s: detail %q, want %q", tt.method, tt.path, p.Detail, tt.detail)
		}
	}
}

// Every string a client sends is checked once, at the edge, whatever the operation:
// NUL and invalid UTF-8 are a 422 that names the field, and nothing is stored.
func TestHygiene_badTextIs422NamingTheField(t *testing.T) {
	t.Parallel()
	s := newEdgeServer(t, nil)
	tests := []struct {
		name, method, path, body, location string
	}{
		{"NUL in content", "PUT", "/v1/users/u/memories/k", `{"type":"fact","content":"a\u0000b"}`, "body.content"},
		{"invalid UTF-8 in content", "PUT", "/v1/users/u/memories/k", "{\"type\":\"fact\",\"content\":\"caf\xe9\"}", "body.content"},
		{"a lone surrogate in content", "PUT", "/v1/users/u/memories/k", `{"type":"fact","content":"x\ud800y"}`, "body.content"},
		{"NUL in a message name", "POST", "/v1/users/u/messages", `{"conversation_id":"c","role":"user","name":"A\u0000","content":"hi"}`, "body.name"},
		{"NUL in a batch item", "POST", "/v1/users/u/messages:batch", `{"messages":[{"conversation_id":"c","role":"user","content":"ok"},{"conversation_id":"c","role":"user","content":"\u0000"}]}`, "body.messages[1].content"},
		{"NUL in an object name", "POST", "/v1/users/u/messages", `{"conversation_id":"c","role":"user","content":"hi","x\u0000":1}`, "body.x\x00"},
		{"NUL in a revert event_id", "POST", "/v1/users/u/memories/k/revert", `{"event_id":"e\u0000"}`, "body.event_id"},
		{"NUL in a search query", "POST", "/v1/users/u/search", `{"query":"tea\u0000"}`, "body.query"},
		{"NUL in a list q", "GET", "/v1/users/u/memories?q=a%00b", "", "query.q"},
		{"invalid UTF-8 in a list q", "GET", "/v1/users/u/memories?q=%ff", "", "query.q"},
		{"NUL in a cursor", "GET", "/v1/users/u/memories?cursor=%00", "", "query.cursor"},
		{"NUL in an undeclared query parameter", "GET", "/v1/users/u/memories?colour=%00", "", "query.colour"},
		{"NUL in a job id", "GET", "/v1/jobs/a%00b", "", "path.job_id"},
		{"NUL in a user id", "GET", "/v1/users/a%00/memories", "", "path.user"},
		{"invalid UTF-8 in a key", "GET", "/v1/users/u/memories/%C3", "", "path.key"},
		{"NUL in a message id", "GET", "/v1/users/u/messages/m%00", "", "path.message_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			expectProblem(t, s.do(t, tt.method, tt.path, tt.body), http.StatusUnprocessableEntity, tt.location)
		})
	}
	page, err := s.memories.List(t.Context(), memory.Scope{Tenant: "acme", User: "u"}, ports.MemoryQuery{IncludeInactive: true, Now: time.Now()})
	if err != nil || len(page.Items) != 0 {
		t.Errorf("something was stored: %v %v", page.Items, err)
	}
}

func TestHygiene_blankIDsAndTimesOutOfRangeAre422(t *testing.T) {
	t.Parallel()
	s := newEdgeServer(t, nil)
	tests := []struct {
		name, method, path, body, location string
	}{
		{"a user id of spaces", "GET", "/v1/users/%20%20/memories", "", "path.user"},
		{"a conversation id of spaces", "POST", "/v1/users/u/messages", `{"conversation_id":"  ","role":"user","content":"hi"}`, "body.conversation_id"},
		{"a message id of spaces", "POST", "/v1/users/u/messages", `{"conversation_id":"c","message_id":" ","role":"user","content":"hi"}`, "body.message_id"},
		{"an event id of spaces", "POST", "/v1/users/u/memories/k/revert", `{"event_id":"   "}`, "body.event_id"},
		{"a message said in year 1", "POST", "/v1/users/u/messages", `{"conversation_id":"c","role":"user","content":"hi","created_at":"0001-01-01T00:00:00Z"}`, "body.created_at"},
		{"a message said in 1969", "POST", "/v1/users/u/messages", `{"conversation_id":"c","role":"user","content":"hi","created_at":"1969-12-31T23:59:59Z"}`, "body.created_at"},
		{"a message said in 2999", "POST", "/v1/users/u/messages", `{"conversation_id":"c","role":"user","content":"hi","created_at":"2999-01-01T00:00:00Z"}`, "body.created_at"},
		{"a batch item said in 2999", "POST", "/v1/users/u/messages:batch", `{"messages":[{"conversation_id":"c","role":"user","content":"hi","created_at":"2999-01-01T00:00:00Z"}]}`, "body.messages[0].created_at"},
		{"a batch item said in year 1", "POST", "/v1/users/u/messages:batch", `{"messages":[{"conversation_id":"c","role":"user","content":"hi"},{"conversation_id":"c","role":"user","content":"hi","created_at":"0001-01-01T00:00:00Z"}]}`, "body.messages[1].created_at"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			expectProblem(t, s.do(t, tt.method, tt.path, tt.body), http.StatusUnprocessableEntity, tt.location)
		})
	}
	// A day ahead is a clock's skew, not a bug.
	resp := s.do(t, "POST", "/v1/users/u/messages", `{"conversation_id":"c","role":"user","content":"hi","created_at":"2026-12-01T08:00:00Z"}`)
	if resp.Code != http.StatusAccepted {
		t.Errorf("23 hours ahead: %d %s", resp.Code, resp.Body.String())
	}
}

// A route the mux serves alone gets the edge too: a panic is a 500 naming the
// request, and what the handler logs with the request's context carries its id.
func TestEdge_panicsAndHandlerLogsNameTheRequest(t *testing.T) {
	t.Parallel()
	logs := &syncBuffer{}
	log := slog.New(httpapi.WithRequestIDs(slog.NewJSONHandler(logs, nil)))
	mux := http.NewServeMux()
	api := httpapi.New(mux, httpapi.Options{Logger: log}, auth.New(auth.Options{Open: true}, nil, nil, nil))
	mux.HandleFunc("GET /inside", func(w http.ResponseWriter, r *http.Request) {
		log.InfoContext(r.Context(), "handler says hello")
		if r.URL.Query().Get("panic") != "" {
			panic("boom")
		}
	})
	serve := func(path, id string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("X-Request-ID", id)
		rec := httptest.NewRecorder()
		api.Handler().ServeHTTP(rec, req)
		return rec
	}
	if rec := serve("/inside", "calm-1"); rec.Code != http.StatusOK || rec.Header().Get("X-Request-ID") != "calm-1" {
		t.Errorf("calm request: %d, X-Request-ID %q", rec.Code, rec.Header().Get("X-Request-ID"))
	}
	p := expectProblem(t, serve("/inside?panic=1", "boom-1"), http.StatusInternalServerError, "")
	if p.Detail != "internal error; request id boom-1" {
		t.Errorf("panic detail %q", p.Detail)
	}
	said := map[string]bool{}
	for _, rec := range logs.lines(t) {
		id, _ := rec["request_id"].(string)
		said[rec["msg"].(string)+" "+id] = true
	}
	for _, want := range []string{"handler says hello calm-1", "handler says hello boom-1", "panic serving request boom-1",
		"http request calm-1", "http request boom-1"} {
		if !said[want] {
			t.Errorf("no log line %q in %v", want, said)
		}
	}
}

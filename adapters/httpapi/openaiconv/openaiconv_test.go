package openaiconv

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	appconv "engram/app/agentconv"
	"engram/domain/agentconv"
	"engram/domain/memory"
	"engram/test/teststore"
)

func TestRender(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		item agentconv.Item
		want string
	}{
		{"a full item comes back as sent, its id first",
			agentconv.Item{ID: "fc_1", Type: "function_call", Raw: []byte(`{"type":"function_call","arguments":"{\"a\":\"<b>\"}","n":1.50}`)},
			`{"id":"fc_1","type":"function_call","arguments":"{\"a\":\"<b>\"}","n":1.50}`},
		{"an item with its own id comes back as sent",
			agentconv.Item{ID: "rs_9", Type: "reasoning", Raw: []byte(`{"type":"reasoning","id":"rs_9","summary":[]}`)},
			`{"type":"reasoning","id":"rs_9","summary":[]}`},
		{"a short user message gets its type and a text part",
			agentconv.Item{ID: "msg_1", Type: "message", Role: agentconv.RoleUser, Raw: []byte(`{"role":"user","content":"I <3 tofu"}`)},
			`{"id":"msg_1","type":"message","role":"user","content":[{"type":"input_text","text":"I <3 tofu"}]}`},
		{"an assistant's string content becomes output_text",
			agentconv.Item{ID: "msg_2", Type: "message", Role: agentconv.RoleAssistant, Raw: []byte(`{"type":"message","role":"assistant","content":"ok"}`)},
			`{"id":"msg_2","type":"message","role":"assistant","content":[{"type":"output_text","text":"ok","annotations":[]}]}`},
		{"parts content is kept", agentconv.Item{ID: "msg_3", Type: "message", Role: agentconv.RoleUser,
			Raw: []byte(`{"role":"user","content":[{"type":"input_text","text":"hi"}]}`)},
			`{"id":"msg_3","type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := string(render(tt.item)); got != tt.want {
				t.Errorf("render =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestParseItem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw       string
		wantType  string
		wantRole  agentconv.Role
		wantText  string
		wantID    string
		wantParam string // a refusal naming this parameter
	}{
		{raw: `{"role":"user","content":"hi"}`, wantType: "message", wantRole: agentconv.RoleUser, wantText: "hi"},
		{raw: `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a"},{"type":"refusal","refusal":"no"},{"type":"output_text","text":"b"}]}`,
			wantType: "message", wantRole: agentconv.RoleAssistant, wantText: "a\n\nb"},
		{raw: `{"role":"developer","content":[{"type":"input_text","text":"cite"}]}`, wantType: "message", wantRole: agentconv.RoleDeveloper, wantText: "cite"},
		{raw: `{"type":"reasoning","id":"rs_1","summary":[]}`, wantType: "reasoning", wantID: "rs_1"},
		{raw: `{"role":"user","content":"a\u0000b"}`, wantType: "message", wantRole: agentconv.RoleUser, wantText: "ab"},
		{raw: `{"type":"function_call_output","call_id":"c","output":"sunny"}`, wantType: "function_call_output"},
		{raw: `{"type":"message","role":"tool","content":"x"}`, wantParam: "items[0].role"},
		{raw: `{"type":"message","role":"user"}`, wantParam: "items[0].content"},
		{raw: `{"content":"x"}`, wantParam: "items[0].type"},
		{raw: `{"type":"function_call","id":7}`, wantParam: "items[0].id"},
		{raw: `"hello"`, wantParam: "items[0]"},
		{raw: "{\"type\":\"message\",\"role\":\"user\",\"content\":\"\xff\"}", wantParam: "items[0]"},
		{raw: `{"type":"a\u0001b"}`, wantParam: "items[0].type"},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			t.Parallel()
			got, f := parseItem("items[0]", json.RawMessage(tt.raw))
			if tt.wantParam != "" {
				if f == nil || f.param != tt.wantParam || f.status != http.StatusBadRequest {
					t.Errorf("parseItem = %+v, %+v; want a 400 naming %s", got, f, tt.wantParam)
				}
				return
			}
			if f != nil || got.Type != tt.wantType || got.Role != tt.wantRole || got.Text != tt.wantText || got.ID != tt.wantID || string(got.Raw) != tt.raw {
				t.Errorf("parseItem = %+v, %+v", got, f)
			}
		})
	}
}

type noSessions struct{}

func (noSessions) Record(context.Context, memory.Scope, string, agentconv.Exchange) error { return nil }
func (noSessions) Delete(context.Context, memory.Scope, string) error                     { return nil }

type sequentialIDs struct{ n int }

func (s *sequentialIDs) New() string { s.n++; return fmt.Sprintf("ID%04d", s.n) }

type clock struct{}

func (clock) Now() time.Time { return time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC) }

func newServer(t *testing.T) *httptest.Server {
	t.Helper()
	svc := appconv.New(appconv.Deps{Store: teststore.New(t).AgentConversations, Sessions: noSessions{}, IDs: &sequentialIDs{}, Clock: clock{}})
	h := New(svc, Options{Tenant: func(context.Context) string { return "acme" }, RequestID: func(context.Context) string { return "req-1" },
		MaxBodyBytes: 4096})
	mux := http.NewServeMux()
	for pattern, route := range h.Routes() {
		mux.Handle(pattern, route)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func send(t *testing.T, srv *httptest.Server, method, path, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+"/openai/users/alice/v1"+path, strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b))
}

func TestRoutes_answerInOpenAIShapes(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	code, body := send(t, srv, http.MethodPost, "/conversations", `{"metadata":{"topic":"food"},"items":[{"role":"user","content":"hi"}]}`)
	var conv struct {
		ID        string            `json:"id"`
		Object    string            `json:"object"`
		CreatedAt int64             `json:"created_at"`
		Metadata  map[string]string `json:"metadata"`
	}
	if code != http.StatusOK || json.Unmarshal([]byte(body), &conv) != nil || !strings.HasPrefix(conv.ID, "conv_") || conv.Object != "conversation" ||
		conv.CreatedAt != (clock{}).Now().Unix() || conv.Metadata["topic"] != "food" {
		t.Fatalf("create = %d %s", code, body)
	}
	code, body = send(t, srv, http.MethodPost, "/conversations/"+conv.ID+"/items?include=message.output_text.logprobs",
		`{"items":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hello"}]}]}`)
	var list struct {
		Object  string            `json:"object"`
		Data    []json.RawMessage `json:"data"`
		FirstID string            `json:"first_id"`
		LastID  string            `json:"last_id"`
		HasMore bool              `json:"has_more"`
	}
	if code != http.StatusOK || json.Unmarshal([]byte(body), &list) != nil || list.Object != "list" || len(list.Data) != 1 || list.FirstID != list.LastID || list.HasMore {
		t.Fatalf("add items = %d %s", code, body)
	}
	code, body = send(t, srv, http.MethodGet, "/conversations/"+conv.ID+"/items?limit=1", "")
	if code != http.StatusOK || json.Unmarshal([]byte(body), &list) != nil || len(list.Data) != 1 || !list.HasMore ||
		!strings.Contains(string(list.Data[0]), `"text":"hello"`) {
		t.Errorf("the newest item by default = %d %s", code, body)
	}
	code, body = send(t, srv, http.MethodGet, "/conversations/"+conv.ID+"/items?limit=1&order=asc&after="+list.LastID, "")
	if code != http.StatusOK || json.Unmarshal([]byte(body), &list) != nil || len(list.Data) != 0 || list.HasMore {
		t.Errorf("after the last = %d %s", code, body)
	}
	if code, body = send(t, srv, http.MethodPost, "/conversations/"+conv.ID, `{"metadata":{"topic":"cooking"}}`); code != http.StatusOK ||
		!strings.Contains(body, `"metadata":{"topic":"cooking"}`) {
		t.Errorf("update = %d %s", code, body)
	}
	if code, body = send(t, srv, http.MethodDelete, "/conversations/"+conv.ID, ""); code != http.StatusOK ||
		body != `{"deleted":true,"id":"`+conv.ID+`","object":"conversation.deleted"}` {
		t.Errorf("delete = %d %s", code, body)
	}
}

func TestRoutes_refuseInOpenAIErrorShape(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	tests := []struct {
		method, path, body string
		status             int
		param, code        string
	}{
		{http.MethodGet, "/conversations/conv_nope", "", http.StatusNotFound, "", "not_found"},
		{http.MethodGet, "/conversations/conv%00x", "", http.StatusBadRequest, "conversation", ""},
		{http.MethodDelete, "/conversations/conv_1/items/%ff", "", http.StatusBadRequest, "item", ""},
		{http.MethodGet, "/conversations/conv_nope?extra=1", "", http.StatusBadRequest, "extra", ""},
		{http.MethodPost, "/conversations", `{"items":[{"type":"message","role":"robot","content":"x"}]}`, http.StatusBadRequest, "items[0].role", ""},
		{http.MethodPost, "/conversations", `{"itemz":[]}`, http.StatusBadRequest, "itemz", ""},
		{http.MethodPost, "/conversations", `{"items":[{"role":"user","content":"` + strings.Repeat("x", 5000) + `"}]}`, http.StatusRequestEntityTooLarge, "", ""},
		{http.MethodGet, "/conversations/conv_nope/items?limit=0", "", http.StatusBadRequest, "limit", ""},
		{http.MethodPost, "/conversations/conv_nope", `{}`, http.StatusBadRequest, "metadata", ""},
		{http.MethodPost, "/conversations/conv_nope", `{"metadata":{}}`, http.StatusNotFound, "", "not_found"},
		{http.MethodGet, "/conversations/conv_nope/items?limit=101", "", http.StatusBadRequest, "limit", ""},
		{http.MethodGet, "/conversations/conv_nope/items?order=up", "", http.StatusBadRequest, "order", ""},
		{http.MethodPost, "/conversations/conv_nope/items", `{"items":[{"role":"user","content":"x"}]}`, http.StatusNotFound, "", "not_found"},
		{http.MethodDelete, "/conversations/conv_nope/items/msg_1", "", http.StatusNotFound, "", "not_found"},
	}
	for _, tt := range tests {
		code, body := send(t, srv, tt.method, tt.path, tt.body)
		var e apiError
		if err := json.Unmarshal([]byte(body), &e); err != nil || code != tt.status || e.Error.Message == "" ||
			(e.Error.Param == nil) != (tt.param == "") || (e.Error.Code == nil) != (tt.code == "") ||
			(tt.param != "" && *e.Error.Param != tt.param) || (tt.code != "" && *e.Error.Code != tt.code) {
			t.Errorf("%s %s = %d %s; want %d param %q code %q", tt.method, tt.path, code, clipBody(body), tt.status, tt.param, tt.code)
		}
	}
}

func clipBody(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"engram/app/auth"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"engram/adapters/httpapi"
	"engram/adapters/sqlstore"
	"engram/adapters/ulids"
	"engram/app/lifecycle"
	"engram/app/messages"
	"engram/domain/memory"
	"engram/test/teststore"
)

type messagesAuth struct{}

func (messagesAuth) Authenticate(context.Context, string) (auth.Principal, error) {
	return auth.Principal{Tenant: "t1"}, nil
}

type messagesClock struct{ t time.Time }

func (c messagesClock) Now() time.Time { return c.t }

type messagesServer struct {
	t        *testing.T
	handler  http.Handler
	memories *sqlstore.MemoryStore
}

func newMessagesServer(t *testing.T) *messagesServer {
	t.Helper()
	stores := teststore.New(t)
	mem, msgs := stores.Memories, stores.Messages
	clock := messagesClock{time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
	ids := ulids.New()
	api := httpapi.New(http.NewServeMux(), httpapi.Options{MaxBodyBytes: 1 << 20}, messagesAuth{})
	httpapi.RegisterMessages(api, messages.New(msgs, clock, ids, messages.Options{Debounce: 12 * time.Second}))
	httpapi.RegisterLifecycle(api, lifecycle.New(stores.Jobs, mem, stores.Jobs, clock, ids, lifecycle.Options{}))
	return &messagesServer{t: t, handler: api.Handler(), memories: mem}
}

// do sends body (a string is sent as it is) and decodes the answer into out.
func (s *messagesServer) do(method, path string, body any, out any) (int, string) {
	s.t.Helper()
	var raw []byte
	switch b := body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	default:
		raw, _ = json.Marshal(b)
	}
	req := httptest.NewRequest(method, path, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	s.handler.ServeHTTP(rec, req)
	if out != nil && rec.Body.Len() > 0 {
		if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
			s.t.Fatalf("%s %s: decode %q: %v", method, path, rec.Body.String(), err)
		}
	}
	return rec.Code, rec.Body.String()
}

func postBody(id, role, content string) map[string]any {
	m := map[string]any{"conversation_id": "c1", "role": role, "content": content}
	if id != "" {
		m["message_id"] = id
	}
	return m
}

func TestPostMessage_202ThenRepeat200(t *testing.T) {
	t.Parallel()
	s := newMessagesServer(t)
	var posted httpapi.PostedMessage
	code, body := s.do(http.MethodPost, "/v1/users/alice/messages", postBody("m1", "user", "I am allergic to peanuts."), &posted)
	if code != http.StatusAccepted || posted.MessageID != "m1" || posted.Status != "PENDING" || !posted.Created {
		t.Fatalf("first post: %d %s", code, body)
	}
	code, body = s.do(http.MethodPost, "/v1/users/alice/messages", postBody("m1", "user", "I am allergic to peanuts."), &posted)
	if code != http.StatusOK || posted.MessageID != "m1" || posted.Created {
		t.Errorf("repeat: %d %s, want 200 with the stored message", code, body)
	}
	code, body = s.do(http.MethodPost, "/v1/users/alice/messages", postBody("", "assistant", "Noted."), &posted)
	if code != http.StatusAccepted || len(posted.MessageID) != 26 || posted.Status != "SKIPPED" {
		t.Errorf("assistant without id: %d %s, want 202 SKIPPED with a generated ULID", code, body)
	}
}

func TestPostMessage_409WhenTheIdHoldsOtherContent(t *testing.T) {
	t.Parallel()
	s := newMessagesServer(t)
	s.do(http.MethodPost, "/v1/users/alice/messages", postBody("m1", "user", "I like jazz."), nil)
	code, body := s.do(http.MethodPost, "/v1/users/alice/messages", postBody("m1", "user", "I like blues."), nil)
	if code != http.StatusConflict || !strings.Contains(body, `message_id \"m1\" is already stored`) || !strings.Contains(body, "new message_id") {
		t.Errorf("%d %s", code, body)
	}
	if strings.Contains(body, "retry the request") {
		t.Errorf("the 409 advises a retry, which would fail again: %s", body)
	}
}

func TestPostMessage_422NamesTheField(t *testing.T) {
	t.Parallel()
	s := newMessagesServer(t)
	cases := map[string]struct {
		body any
		want string
	}{
		"unknown role":      {postBody("m1", "robot", "hi"), "role"},
		"blank content":     {postBody("m1", "user", "   "), "content"},
		"no conversation":   {map[string]any{"role": "user", "content": "hi"}, "conversation_id"},
		"control character": {map[string]any{"conversation_id": "c\x01", "role": "user", "content": "hi"}, "conversation_id"},
	}
	for name, tc := range cases {
		code, body := s.do(http.MethodPost, "/v1/users/alice/messages", tc.body, nil)
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %s, want 422 naming %s", name, code, body, tc.want)
		}
	}
}

func TestPostMessage_400ForBrokenJSON(t *testing.T) {
	t.Parallel()
	s := newMessagesServer(t)
	code, body := s.do(http.MethodPost, "/v1/users/alice/messages", `{"conversation_id": "c1", "role": `, nil)
	if code != http.StatusBadRequest {
		t.Errorf("%d %s, want 400", code, body)
	}
}

func TestPostMessage_413ForABodyOverTheLimit(t *testing.T) {
	t.Parallel()
	s := newMessagesServer(t)
	big := strings.Repeat("x", 1100<<10) // over ENGRAM_HTTP_MAX_BODY_BYTES' default of 1 MiB
	code, body := s.do(http.MethodPost, "/v1/users/alice/messages", postBody("m1", "user", big), nil)
	if code != http.StatusRequestEntityTooLarge {
		t.Errorf("%d %.200s, want 413", code, body)
	}
}

func TestPostBatch_202InOrderAllOrNothing(t *testing.T) {
	t.Parallel()
	s := newMessagesServer(t)
	batch := map[string]any{"messages": []any{
		postBody("m1", "user", "I live in Wuhan."),
		postBody("a1", "assistant", "Nice!"),
		postBody("m1", "user", "I live in Wuhan."),
	}}
	var out httpapi.PostedMessages
	code, body := s.do(http.MethodPost, "/v1/users/alice/messages:batch", batch, &out)
	if code != http.StatusAccepted || len(out.Items) != 3 || out.Items[0].MessageID != "m1" || out.Items[1].Status != "SKIPPED" ||
		!out.Items[0].Created || out.Items[2].Created {
		t.Fatalf("%d %s", code, body)
	}

	conflict := map[string]any{"messages": []any{postBody("m9", "user", "New."), postBody("m1", "user", "I live in Paris.")}}
	code, body = s.do(http.MethodPost, "/v1/users/alice/messages:batch", conflict, nil)
	if code != http.StatusConflict {
		t.Errorf("conflicting batch: %d %s", code, body)
	}
	if code, _ := s.do(http.MethodGet, "/v1/users/alice/messages/m9", nil, nil); code != http.StatusNotFound {
		t.Errorf("a refused batch stored m9: %d", code)
	}

	invalidItem := map[string]any{"messages": []any{postBody("m10", "user", "ok"), postBody("m11", "user", "   ")}}
	code, body = s.do(http.MethodPost, "/v1/users/alice/messages:batch", invalidItem, nil)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "messages[1].content") {
		t.Errorf("invalid item: %d %s, want 422 naming messages[1].content", code, body)
	}
}

func TestPostBatch_422OverFiveHundred(t *testing.T) {
	t.Parallel()
	s := newMessagesServer(t)
	var items []any
	for i := range 501 {
		items = append(items, postBody(fmt.Sprintf("m%d", i), "user", "x"))
	}
	code, body := s.do(http.MethodPost, "/v1/users/alice/messages:batch", map[string]any{"messages": items}, nil)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "500") {
		t.Errorf("%d %.300s", code, body)
	}
	code, _ = s.do(http.MethodPost, "/v1/users/alice/messages:batch", map[string]any{"messages": []any{}}, nil)
	if code != http.StatusUnprocessableEntity {
		t.Errorf("empty batch: %d", code)
	}
}

func TestGetMessage_200WithStatusAndEvents404Otherwise(t *testing.T) {
	t.Parallel()
	s := newMessagesServer(t)
	s.do(http.MethodPost, "/v1/users/alice/messages", postBody("m1", "user", "I am allergic to peanuts."), nil)
	// An extraction wrote a memory from m1.
	scope := memory.Scope{Tenant: "t1", User: "alice"}
	ids := ulids.New()
	d, _ := memory.ParseDraft(memory.DraftInput{Type: "fact", Content: "User is allergic to peanuts."},
		memory.Source{Channel: memory.ChannelExtraction, ConversationID: "c1", MessageID: "m1"})
	_, err := s.memories.Update(context.Background(), scope, memory.MustParseKey("allergy.peanuts"), func(*memory.Memory) (memory.Change, error) {
		m, err := memory.New(ids.New(), scope, memory.MustParseKey("allergy.peanuts"), d, memory.Policy{}, time.Now())
		return memory.Change{Memory: m, Event: memory.NewEvent(ids.New(), memory.OpAdd, nil, m)}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	var got httpapi.Message
	code, body := s.do(http.MethodGet, "/v1/users/alice/messages/m1", nil, &got)
	if code != http.StatusOK || got.Status != "PENDING" || got.Attempts != 0 || got.ProcessAfter == nil ||
		len(got.Events) != 1 || got.Events[0].Op != "ADD" || got.Events[0].After.Key != "allergy.peanuts" ||
		got.Events[0].Source.Channel != "extraction" {
		t.Errorf("%d %s", code, body)
	}
	if code, _ := s.do(http.MethodGet, "/v1/users/bob/messages/m1", nil, nil); code != http.StatusNotFound {
		t.Errorf("another user's message: %d, want 404", code)
	}
	if code, _ := s.do(http.MethodGet, "/v1/users/alice/messages/nope", nil, nil); code != http.StatusNotFound {
		t.Errorf("unknown message: %d, want 404", code)
	}
}

func TestConsolidate_202ThenTheJobIsReadable(t *testing.T) {
	t.Parallel()
	s := newMessagesServer(t)
	var accepted httpapi.JobAccepted
	code, body := s.do(http.MethodPost, "/v1/users/alice/consolidate", nil, &accepted)
	if code != http.StatusAccepted || accepted.JobID == "" || accepted.Status != "QUEUED" {
		t.Fatalf("%d %s", code, body)
	}
	var job httpapi.Job
	code, body = s.do(http.MethodGet, "/v1/jobs/"+accepted.JobID, nil, &job)
	if code != http.StatusOK || job.Kind != "consolidate" || job.User != "alice" || job.Status != "QUEUED" {
		t.Errorf("%d %s", code, body)
	}
	if code, _ := s.do(http.MethodGet, "/v1/jobs/01NOPE", nil, nil); code != http.StatusNotFound {
		t.Errorf("unknown job: %d", code)
	}
}

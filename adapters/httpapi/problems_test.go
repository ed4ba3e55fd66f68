package httpapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
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

// fullProblem is every field of a problem a client reads, the request id aside.
type fullProblem struct {
	Title  string         `json:"title"`
	Status int            `json:"status"`
	Detail string         `json:"detail"`
	Errors []problemError `json:"errors"`
}

type problemError struct {
	Message  string `json:"message"`
	Location string `json:"location"`
	Value    any    `json:"value"`
}

func problemOf(t *testing.T, resp *httptest.ResponseRecorder) fullProblem {
	t.Helper()
	var p fullProblem
	if err := json.Unmarshal(resp.Body.Bytes(), &p); err != nil {
		t.Fatalf("not a problem: %q: %v", resp.Body.String(), err)
	}
	if p.Status != resp.Code {
		t.Errorf("problem status %d on a %d response", p.Status, resp.Code)
	}
	return p
}

func expectExactProblem(t *testing.T, resp *httptest.ResponseRecorder, want fullProblem) {
	t.Helper()
	if got := problemOf(t, resp); !reflect.DeepEqual(got, want) {
		t.Errorf("problem\n got %+v\nwant %+v", got, want)
	}
}

// The problems of the errors that name what the client reused or left out keep
// their wording, status and fields, word for word, wherever they are decided.
func TestProblems_conflictsAndEmptyInputSayWhatToChange(t *testing.T) {
	t.Parallel()
	t.Run("a message_id reused for other content", func(t *testing.T) {
		t.Parallel()
		s := newMessagesServer(t)
		if code, body := s.do(http.MethodPost, "/v1/users/u1/messages", postBody("m1", "user", "tea"), nil); code != http.StatusAccepted {
			t.Fatalf("%d %s", code, body)
		}
		rec := httptest.NewRecorder()
		raw, _ := json.Marshal(postBody("m1", "user", "coffee"))
		req := httptest.NewRequest(http.MethodPost, "/v1/users/u1/messages", bytes.NewReader(raw))
		req.Header.Set("Content-Type", "application/json")
		s.handler.ServeHTTP(rec, req)
		expectExactProblem(t, rec, fullProblem{Title: "Conflict", Status: http.StatusConflict,
			Detail: `message_id "m1" is already stored with a different conversation, role, name or content; a message_id names one message, so send new content with a new message_id`})
	})
	t.Run("an exchange_id reused for another turn", func(t *testing.T) {
		t.Parallel()
		api, _ := newSessionsAPI(t)
		body := map[string]any{"flow_id": "f", "exchange_id": "t1", "user_message": "hi", "assistant_message": "hello"}
		if resp := api.Post("/v1/users/alice/sessions/s1/exchanges", body); resp.Code != http.StatusAccepted {
			t.Fatalf("%d %s", resp.Code, resp.Body.String())
		}
		body["user_message"] = "something else"
		expectExactProblem(t, api.Post("/v1/users/alice/sessions/s1/exchanges", body), fullProblem{Title: "Conflict", Status: http.StatusConflict,
			Detail: "exchange_id is already recorded in this session with other messages; an exchange_id names one turn, so send a new turn with a new exchange_id"})
	})
	t.Run("an event_id reused for another event", func(t *testing.T) {
		t.Parallel()
		h := newProfileHarness(t)
		event := map[string]any{"event_id": "e1", "kind": "task_completed", "at": "2026-12-01T08:00:00Z", "duration_h": 2}
		if resp := h.api.Post("/v1/users/dev/activity", append(as(acmeKey, ""), event)...); resp.Code != http.StatusAccepted {
			t.Fatalf("%d %s", resp.Code, resp.Body.String())
		}
		event["duration_h"] = 3
		expectExactProblem(t, h.api.Post("/v1/users/dev/activity", append(as(acmeKey, ""), event)...), fullProblem{Title: "Conflict", Status: http.StatusConflict,
			Detail: `event_id "e1" is already stored with a different kind, time, flow or duration; an event_id names one event, so send a new event with a new event_id`})
	})
	t.Run("a profile patch that names no field", func(t *testing.T) {
		t.Parallel()
		h := newProfileHarness(t)
		want := fullProblem{Title: "Unprocessable Entity", Status: http.StatusUnprocessableEntity,
			Detail: "the patch names no field: send at least one declared field to set, or null to clear it"}
		want.Errors = []problemError{{Message: "must name at least one declared field", Location: "body"}}
		expectExactProblem(t, h.api.Patch("/v1/users/dev/profile", append(as(acmeKey, ""), map[string]any{})...), want)
	})
	t.Run("a purge where this process cannot purge", func(t *testing.T) {
		t.Parallel()
		api := newMemoriesOnlyAPI(t)
		if resp := api.Put("/v1/users/alice/memories/diet", map[string]any{"type": "fact", "content": "vegetarian"}); resp.Code != http.StatusCreated {
			t.Fatalf("%d %s", resp.Code, resp.Body.String())
		}
		expectExactProblem(t, api.Delete("/v1/users/alice/memories/diet?purge=true"), fullProblem{Title: "Not Implemented", Status: http.StatusNotImplemented,
			Detail: "purge is not available in this process"})
	})
	t.Run("an unknown tool", func(t *testing.T) {
		t.Parallel()
		api, _ := newToolsHarness(t)
		expectExactProblem(t, api.Post("/v1/users/alice/tools/memory_forget", acme, map[string]any{}), fullProblem{Title: "Not Found", Status: http.StatusNotFound,
			Detail: `tool "memory_forget" not found; the tools are memory_append, memory_context, memory_delete, memory_list, memory_save, memory_search`})
	})
	t.Run("a tool's argument the model got wrong", func(t *testing.T) {
		t.Parallel()
		api, _ := newToolsHarness(t)
		want := fullProblem{Title: "Unprocessable Entity", Status: http.StatusUnprocessableEntity,
			Detail: "argument `type` must be one of preference, fact, goal, project, constraint; you sent `profile`"}
		want.Errors = []problemError{{Message: "must be one of preference, fact, goal, project, constraint", Location: "body.arguments.type", Value: "profile"}}
		expectExactProblem(t, api.Post("/v1/users/alice/tools/memory_save", acme,
			map[string]any{"arguments": map[string]any{"key": "diet", "type": "profile", "content": "x"}}), want)
	})
	t.Run("a tool call on an object that is absent", func(t *testing.T) {
		t.Parallel()
		api, _ := newToolsHarness(t)
		expectExactProblem(t, api.Post("/v1/users/alice/tools/memory_append", acme,
			map[string]any{"arguments": map[string]any{"key": "diet", "content": "x"}}), fullProblem{Title: "Not Found", Status: http.StatusNotFound,
			Detail: `memory "diet" not found; memory_append only adds to an existing memory: create it with memory_save`})
	})
}

// newMemoriesOnlyAPI serves the memory operations alone: no erasure is registered.
func newMemoriesOnlyAPI(t *testing.T) humatest.TestAPI {
	t.Helper()
	clk := fakeclock.New(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	ids := &seqIDs{}
	stores := teststore.New(t)
	authn := auth.New(auth.Options{Open: true}, stores.APIKeys, clk, ids)
	api := httpapi.New(http.NewServeMux(), httpapi.Options{MaxBodyBytes: 1 << 20}, authn)
	httpapi.RegisterMemories(api, memories.New(stores.Memories, clk, ids, memory.Policy{}))
	return humatest.Wrap(t, api.Root)
}

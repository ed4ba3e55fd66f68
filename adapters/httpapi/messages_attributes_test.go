package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"engram/adapters/httpapi"
)

func TestPostMessage_attributesAreStoredAndReturned(t *testing.T) {
	t.Parallel()
	s := newMessagesServer(t)
	body := postBody("m1", "user", "I am allergic to peanuts.")
	body["agent_id"], body["app_id"], body["run_id"] = "chef-bot", "kitchen", "run-7"
	body["metadata"] = map[string]any{"source": "onboarding"}
	if code, raw := s.do(http.MethodPost, "/v1/users/alice/messages", body, nil); code != http.StatusAccepted {
		t.Fatalf("post: %d %s", code, raw)
	}
	var got httpapi.Message
	code, raw := s.do(http.MethodGet, "/v1/users/alice/messages/m1", nil, &got)
	if code != http.StatusOK || got.AgentID != "chef-bot" || got.AppID != "kitchen" || got.RunID != "run-7" || got.Metadata["source"] != "onboarding" {
		t.Errorf("get: %d %s", code, raw)
	}
}

func TestPostMessage_badMetadataIs422(t *testing.T) {
	t.Parallel()
	s := newMessagesServer(t)
	body := postBody("m1", "user", "I am allergic to peanuts.")
	body["metadata"] = map[string]any{"k": strings.Repeat("x", 16*1024)}
	code, raw := s.do(http.MethodPost, "/v1/users/alice/messages", body, nil)
	if code != http.StatusUnprocessableEntity || !strings.Contains(raw, "body.metadata") {
		t.Errorf("post with 16 KB of metadata: %d %s, want 422 at body.metadata", code, raw)
	}
	batch := map[string]any{"messages": []any{postBody("m2", "user", "Hi"), body}}
	code, raw = s.do(http.MethodPost, "/v1/users/alice/messages:batch", batch, nil)
	if code != http.StatusUnprocessableEntity || !strings.Contains(raw, "messages[1].metadata") {
		t.Errorf("batch with 16 KB of metadata: %d %s, want 422 naming messages[1].metadata", code, raw)
	}
}

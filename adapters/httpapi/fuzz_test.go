package httpapi_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"engram/adapters/httpapi"
	"engram/domain/memory"
)

// cleanText fails t if text is not valid UTF-8 or holds NUL.
func cleanText(t *testing.T, what string, texts ...string) {
	t.Helper()
	for _, text := range texts {
		if !utf8.ValidString(text) || strings.ContainsRune(text, 0) {
			t.Fatalf("%s: stored invalid text %q", what, text)
		}
	}
}

// FuzzSaveMemory sends any key and any body to memory_save through the real huma
// API on memory stores: the answer is never a 5xx, and nothing invalid is stored.
func FuzzSaveMemory(f *testing.F) {
	f.Add("diet", `{"type":"fact","content":"vegetarian"}`)
	f.Add("饮食 偏好", `{"type":"preference","content":"不吃辣","importance":4,"ttl_days":30}`)
	f.Add("k", `{"type":"fact","content":"a\u0000b"}`)
	f.Add("k", "{\"type\":\"fact\",\"content\":\"caf\xe9\"}")
	f.Add("k", `{"type":"fact","content":"\ud800"}`)
	f.Add("c++", `{"type":"fact","content":"x"}`)
	f.Add("k", `{"type":"fact","content":`)
	f.Add("k", `[1,2,3]`)
	f.Add("k", `{"type":"fact","content":"x","confidence":1e309}`)
	f.Add("k", `{"type":"fact","content":"x","content":"y"}`)
	f.Add("k", `{"TYPE":"fact","CoNtEnT":"x"}`)
	s := newEdgeServer(f, nil)
	f.Fuzz(func(t *testing.T, key, body string) {
		resp := s.do(t, http.MethodPut, "/v1/users/u/memories/"+url.PathEscape(key), body)
		if resp.Code >= 500 {
			t.Fatalf("PUT key %q body %q: %d %s", key, body, resp.Code, resp.Body.String())
		}
		if resp.Code != http.StatusOK && resp.Code != http.StatusCreated {
			return
		}
		saved := decode[httpapi.Memory](t, resp)
		m, err := s.memories.Get(t.Context(), memory.Scope{Tenant: "acme", User: "u"}, memory.RestoreKey(saved.Key))
		if err != nil {
			t.Fatalf("the saved memory %q: %v", saved.Key, err)
		}
		cleanText(t, "PUT body "+body, m.Key().String(), m.Content())
	})
}

// FuzzPostMessage sends any body to message_post: never a 5xx, and a stored
// message reads back as valid text without NUL.
func FuzzPostMessage(f *testing.F) {
	f.Add(`{"conversation_id":"c","role":"user","content":"I like tea."}`)
	f.Add(`{"conversation_id":"c","message_id":"m1","role":"assistant","name":"Bot","content":"ok","created_at":"2026-11-30T08:00:00Z"}`)
	f.Add(`{"conversation_id":"c","role":"user","content":"\u0000"}`)
	f.Add(`{"conversation_id":"c","role":"user","name":"\u0000","content":"x"}`)
	f.Add("{\"conversation_id\":\"c\xff\",\"role\":\"user\",\"content\":\"x\"}")
	f.Add(`{"conversation_id":"c","role":"user","content":"x","created_at":"0001-01-01T00:00:00Z"}`)
	f.Add(`{"conversation_id":" ","role":"user","content":"x"}`)
	f.Add(`{"conversation_id":"c","role":"user","content":"x","role":"assistant"}`)
	f.Add(`{"Conversation_ID":"c","ROLE":"user","content":"x"}`)
	s := newEdgeServer(f, nil)
	f.Fuzz(func(t *testing.T, body string) {
		resp := s.do(t, http.MethodPost, "/v1/users/u/messages", body)
		if resp.Code >= 500 {
			t.Fatalf("POST body %q: %d %s", body, resp.Code, resp.Body.String())
		}
		if resp.Code != http.StatusAccepted && resp.Code != http.StatusOK {
			return
		}
		posted := decode[struct {
			MessageID string `json:"message_id"`
		}](t, resp)
		m, err := s.messages.Message(t.Context(), memory.Scope{Tenant: "acme", User: "u"}, posted.MessageID)
		if err != nil {
			t.Fatalf("the posted message %q: %v", posted.MessageID, err)
		}
		cleanText(t, "POST body "+body, m.ID, m.ConversationID, m.Name, m.Content)
	})
}

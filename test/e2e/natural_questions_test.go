package e2e

import (
	"net/http"
	"slices"
	"testing"
)

func TestSearch_naturalQuestionsFindTheirMemories(t *testing.T) {
	naturalQuestions(t, Start(t, relevanceEnv(t)...))
}

func TestSearch_naturalQuestionsFindTheirMemories_Postgres_Redis(t *testing.T) {
	srv, _, _ := startOnPostgresAndRedis(t, "LONG_TERM_MEMORY_DEBOUNCE_SEC=3600", "ENGRAM_VECTOR_SEARCH_TIMEOUT_MS=5000")
	naturalQuestions(t, srv)
}

// naturalQuestions: on the offline default (no model), a question that shares no
// content word with the memory it asks for finds it, in English, in Chinese and
// across the two, among a user's everyday memories; an unrelated question still
// finds nothing.
func naturalQuestions(t *testing.T, srv *Server) {
	c := relevanceClient{t: t, srv: srv}
	user := "natural"
	facts := []struct{ key, typ, content string }{
		{"allergy.penicillin", "constraint", "User is allergic to penicillin."},
		{"allergy.peanuts", "constraint", "User is allergic to peanuts."},
		{"home.city", "fact", "用户住在上海浦东"},
		{"work.role", "fact", "User works as a nurse at a hospital."},
	}
	for _, f := range facts {
		if code := srv.Do(http.MethodPut, "/v1/users/"+user+"/memories/"+f.key, map[string]any{"type": f.typ, "content": f.content}, nil); code != http.StatusCreated {
			t.Fatalf("save %s = %d", f.key, code)
		}
	}
	for _, m := range everydayMemories {
		c.save(user, m[0], m[1], 0)
	}
	for _, f := range facts {
		c.waitSynced(user, f.key)
	}
	for _, tt := range []struct{ query, want string }{
		{"which medicine must I avoid?", "allergy.penicillin"},
		{"我住哪里", "home.city"},
		{"她对什么过敏？", "allergy.peanuts"},
	} {
		a := c.search(user, map[string]any{"query": tt.query, "limit": 5})
		if !slices.Contains(a.ids(), tt.want) {
			t.Errorf("%q: found %v; want %s among them", tt.query, a.ids(), tt.want)
		}
		if a.FallbackReason != "" {
			t.Errorf("%q: fallback %q; want vectors and lexical search", tt.query, a.FallbackReason)
		}
	}
	if a := c.search(user, map[string]any{"query": "quantum chromodynamics lecture schedule", "limit": 5}); len(a.Items) != 0 {
		t.Errorf("unrelated question: found %v; want nothing", a.ids())
	}
}

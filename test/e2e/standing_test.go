package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"engram/test/wait"
)

// standingAnswer is the part of a context answer these cases read.
type standingAnswer struct {
	Sections struct {
		Standing []struct {
			Key     string `json:"key"`
			Type    string `json:"type"`
			Content string `json:"content"`
		} `json:"standing"`
		Memories []struct {
			Key     string `json:"key"`
			Content string `json:"content"`
		} `json:"memories"`
		RecentMessages []struct {
			ExchangeID string `json:"exchange_id"`
			Role       string `json:"role"`
			Content    string `json:"content"`
		} `json:"recent_messages"`
	} `json:"sections"`
	Prompt        string `json:"prompt"`
	TraceID       string `json:"trace_id"`
	InjectedChars int    `json:"injected_chars"`
}

type standingTrace struct {
	Query          string `json:"query"`
	QueryChars     int    `json:"query_chars"`
	QueryTruncated bool   `json:"query_truncated"`
	Items          []struct {
		ID      string `json:"id"`
		Section string `json:"section"`
		Source  string `json:"source"`
	} `json:"items"`
}

type memoryAnswer struct {
	Key       string     `json:"key"`
	Type      string     `json:"type"`
	Pinned    bool       `json:"pinned"`
	ExpiresAt *time.Time `json:"expires_at"`
	Version   int        `json:"version"`
}

func standingContext(t *testing.T, srv *Server, user string, body map[string]any) (standingAnswer, standingTrace) {
	t.Helper()
	var a standingAnswer
	if code := srv.Do(http.MethodPost, "/v1/users/"+user+"/context", body, &a); code != http.StatusOK {
		t.Fatalf("context %v = %d", body["query"], code)
	}
	var tr standingTrace
	if code := srv.Do(http.MethodGet, "/v1/traces/"+a.TraceID, nil, &tr); code != http.StatusOK {
		t.Fatalf("trace %s = %d", a.TraceID, code)
	}
	return a, tr
}

func saveMemory(t *testing.T, srv *Server, user, key string, body map[string]any) memoryAnswer {
	t.Helper()
	var m memoryAnswer
	if code := srv.Do(http.MethodPut, "/v1/users/"+user+"/memories/"+key, body, &m); code != http.StatusOK && code != http.StatusCreated {
		t.Fatalf("save %s %v = %d", key, body, code)
	}
	return m
}

// carolCase: the user says a standing rule and a diet in one turn; in a new
// session, a question that shares no word with either still gets both, as
// standing memories (source standing in the trace), while search, which does
// not change, does not return the reply-language rule for it.
func carolCase(t *testing.T, srv *Server, user string) {
	t.Helper()
	if code := srv.Do(http.MethodPost, "/v1/users/"+user+"/sessions/s1/exchanges", map[string]any{
		"flow_id": "chat", "user_message": "From now on always reply in Chinese. Also I am vegan.", "assistant_message": "好的，以后都用中文回复。",
	}, nil); code != http.StatusAccepted {
		t.Fatalf("record exchange = %d", code)
	}
	var list struct {
		Items []struct {
			Key     string `json:"key"`
			Content string `json:"content"`
		} `json:"items"`
	}
	wait.Until(t, time.Minute, "the constraint and the diet extracted", func() bool {
		srv.Do(http.MethodGet, "/v1/users/"+user+"/memories", nil, &list)
		var chinese, vegan bool
		for _, m := range list.Items {
			chinese = chinese || strings.Contains(m.Content, "Chinese")
			vegan = vegan || strings.Contains(m.Content, "vegan")
		}
		return chinese && vegan
	})
	a, tr := standingContext(t, srv, user, map[string]any{"query": "Can you suggest a recipe for dinner?", "session_id": "s2", "flow_id": "chat"})
	var chinese, vegan bool
	for _, m := range a.Sections.Standing {
		chinese = chinese || strings.Contains(m.Content, "Chinese")
		vegan = vegan || strings.Contains(m.Content, "vegan")
	}
	if !chinese || !vegan || !strings.Contains(a.Prompt, "Chinese") || !strings.Contains(a.Prompt, "vegan") {
		t.Fatalf("the new session's context lacks the standing rules: %+v\n%s", a.Sections.Standing, a.Prompt)
	}
	standing := 0
	for _, it := range tr.Items {
		if it.Section == "standing" {
			standing++
			if it.Source != "standing" {
				t.Errorf("standing item %s has source %q", it.ID, it.Source)
			}
		}
	}
	if standing != len(a.Sections.Standing) {
		t.Errorf("trace has %d standing items, the answer %d", standing, len(a.Sections.Standing))
	}
	// Search does not change: it returns what has evidence for the question (the
	// diet may, through related words), never the standing rules as such.
	var found struct {
		Items []struct {
			Memory *struct {
				Content string `json:"content"`
			} `json:"memory"`
		} `json:"items"`
	}
	if code := srv.Do(http.MethodPost, "/v1/users/"+user+"/search", map[string]any{"query": "Can you suggest a recipe for dinner?"}, &found); code != http.StatusOK {
		t.Fatalf("search = %d", code)
	}
	for _, it := range found.Items {
		if it.Memory != nil && strings.Contains(it.Memory.Content, "Chinese") {
			t.Errorf("search for a dinner recipe returned the reply-language rule: %+v", found.Items)
		}
	}
}

// pairsCase: with budgets from 300 to 400 characters, the recent messages of a
// session are whole exchanges: never an answer without its question.
func pairsCase(t *testing.T, srv *Server, user string) {
	t.Helper()
	for i := 1; i <= 4; i++ {
		if code := srv.Do(http.MethodPost, "/v1/users/"+user+"/sessions/rel/exchanges", map[string]any{
			"flow_id": "ops", "exchange_id": fmt.Sprintf("turn-%d", i),
			"user_message":      fmt.Sprintf("我们把 2.1%d 版本的发布推迟到下周三，记得同步给测试组和运维组。", i),
			"assistant_message": fmt.Sprintf("OK, noted release 2.1%d.", i),
		}, nil); code != http.StatusAccepted {
			t.Fatalf("record exchange %d = %d", i, code)
		}
	}
	wait.Until(t, 30*time.Second, "the four exchanges in the session", func() bool {
		a, _ := standingContext(t, srv, user, map[string]any{"query": "发布", "session_id": "rel", "flow_id": "ops", "include": []string{"recent"}})
		return len(a.Sections.RecentMessages) == 8
	})
	for budget := 300; budget <= 400; budget += 5 {
		a, _ := standingContext(t, srv, user, map[string]any{"query": "发布时间是什么时候？", "session_id": "rel", "flow_id": "ops", "budget_chars": budget})
		if a.InjectedChars > budget {
			t.Errorf("budget %d: %d characters", budget, a.InjectedChars)
		}
		roles := map[string]map[string]bool{}
		for _, m := range a.Sections.RecentMessages {
			if roles[m.ExchangeID] == nil {
				roles[m.ExchangeID] = map[string]bool{}
			}
			roles[m.ExchangeID][m.Role] = true
		}
		if len(roles) == 0 {
			t.Errorf("budget %d: no recent exchange at all\n%s", budget, a.Prompt)
		}
		for x, r := range roles {
			if r["assistant"] != r["user"] {
				t.Errorf("budget %d: exchange %s injected without its %s\n%s", budget, x, map[bool]string{true: "answer", false: "question"}[r["user"]], a.Prompt)
			}
		}
	}
}

// longQueryCase: a 5,000-character query (a pasted log, the question at its
// end) is served by the context call and by search, which find the memory it
// asks about; the trace says the query was cut.
func longQueryCase(t *testing.T, srv *Server, user string) {
	t.Helper()
	saveMemory(t, srv, user, "release.date", map[string]any{"type": "project", "content": "The release of version 2.14 moved to December 15."})
	question := "\nWhen is the release of version 2.14?"
	query := strings.Repeat("2026-12-01T10:00:00Z INFO worker=3 job ok\n", 120)[:5000-len(question)] + question
	if n := len([]rune(query)); n != 5000 {
		t.Fatalf("the query has %d characters", n)
	}
	a, tr := standingContext(t, srv, user, map[string]any{"query": query})
	found := false
	for _, m := range a.Sections.Memories {
		found = found || m.Key == "release.date"
	}
	if !found {
		t.Errorf("the long query did not find the release memory: %+v", a.Sections.Memories)
	}
	if !tr.QueryTruncated || tr.QueryChars != 5000 || len([]rune(tr.Query)) > 2000 || !strings.HasSuffix(tr.Query, strings.TrimSpace(question)) {
		t.Errorf("trace query: truncated %v, %d characters asked, %d kept", tr.QueryTruncated, tr.QueryChars, len([]rune(tr.Query)))
	}
	var res struct {
		Items []struct {
			Memory *struct {
				Key string `json:"key"`
			} `json:"memory"`
		} `json:"items"`
		QueryTruncated bool `json:"query_truncated"`
	}
	if code := srv.Do(http.MethodPost, "/v1/users/"+user+"/search", map[string]any{"query": query}, &res); code != http.StatusOK {
		t.Fatalf("search with a 5,000-character query = %d", code)
	}
	if len(res.Items) == 0 || res.Items[0].Memory == nil || res.Items[0].Memory.Key != "release.date" || !res.QueryTruncated {
		t.Errorf("search: %+v", res)
	}
}

// pinnedCase: pinned is a field of every memory; a pinned memory is standing
// whatever its type and importance, keeps its pin when saved again without
// one, and leaves the standing section once unpinned. The memory_save tool
// takes it too.
func pinnedCase(t *testing.T, srv *Server, user string) {
	t.Helper()
	m := saveMemory(t, srv, user, "project.codename", map[string]any{"type": "project", "content": "The project is called Bluebird.", "importance": 2, "pinned": true})
	if !m.Pinned {
		t.Fatalf("saved with pinned: %+v", m)
	}
	inStanding := func() bool {
		t.Helper()
		a, _ := standingContext(t, srv, user, map[string]any{"query": "how is the weather today?"})
		for _, s := range a.Sections.Standing {
			if s.Key == "project.codename" {
				return true
			}
		}
		return false
	}
	if !inStanding() {
		t.Error("a pinned memory is not standing")
	}
	if m := saveMemory(t, srv, user, "project.codename", map[string]any{"type": "project", "content": "The project is called Bluebird 2.", "importance": 2}); !m.Pinned {
		t.Errorf("saved again without pinned, the pin was lost: %+v", m)
	}
	if m := saveMemory(t, srv, user, "project.codename", map[string]any{"type": "project", "content": "The project is called Bluebird 2.", "importance": 2, "pinned": false}); m.Pinned {
		t.Errorf("unpinned, still pinned: %+v", m)
	}
	if inStanding() {
		t.Error("an unpinned memory of importance 2 is still standing")
	}
	// PATCH pins without saying the content again, and sets the lifetime.
	saveMemory(t, srv, user, "team", map[string]any{"type": "fact", "content": "Works in the payments team.", "importance": 2, "ttl_days": 30})
	var patched memoryAnswer
	if code := srv.Do(http.MethodPatch, "/v1/users/"+user+"/memories/team", map[string]any{"pinned": true, "ttl_days": 0}, &patched); code != http.StatusOK ||
		!patched.Pinned || patched.ExpiresAt != nil {
		t.Errorf("patch pinned and ttl_days 0 = %d %+v", code, patched)
	}
	a, _ := standingContext(t, srv, user, map[string]any{"query": "how is the weather today?"})
	if len(a.Sections.Standing) != 1 || a.Sections.Standing[0].Key != "team" {
		t.Errorf("after the patch, standing = %+v, want the team memory", a.Sections.Standing)
	}
	if code := srv.Do(http.MethodPatch, "/v1/users/"+user+"/memories/nobody", map[string]any{"pinned": true}, nil); code != http.StatusNotFound {
		t.Errorf("patch of an absent key = %d, want 404", code)
	}
	var tool memoryAnswer
	if code := srv.Do(http.MethodPost, "/v1/users/"+user+"/tools/memory_save", map[string]any{"arguments": map[string]any{
		"key": "hobby", "type": "preference", "content": "Plays the cello.", "pinned": true,
	}}, &tool); code != http.StatusOK || !tool.Pinned {
		t.Errorf("memory_save tool with pinned = %d %+v", code, tool)
	}
}

// ttlCase: ttl_days 0 never expires, absent is the default (a constraint
// never expires by default), and saving the same memory again restarts its
// expiry.
func ttlCase(t *testing.T, srv *Server, user string) {
	t.Helper()
	if m := saveMemory(t, srv, user, "allergy.penicillin", map[string]any{"type": "fact", "content": "Allergic to penicillin.", "ttl_days": 0}); m.ExpiresAt != nil {
		t.Errorf("ttl_days 0 expires at %v", m.ExpiresAt)
	}
	if m := saveMemory(t, srv, user, "reply.style", map[string]any{"type": "constraint", "content": "Answer briefly."}); m.ExpiresAt != nil {
		t.Errorf("a constraint without ttl_days expires at %v", m.ExpiresAt)
	}
	now := time.Now()
	m := saveMemory(t, srv, user, "city", map[string]any{"type": "fact", "content": "Lives in Shanghai."})
	if m.ExpiresAt == nil || m.ExpiresAt.Before(now.AddDate(0, 0, 179)) || m.ExpiresAt.After(now.AddDate(0, 0, 181)) {
		t.Errorf("a fact without ttl_days expires at %v, want the default of 180 days", m.ExpiresAt)
	}
	first := saveMemory(t, srv, user, "trip", map[string]any{"type": "goal", "content": "Visit Kyoto in spring.", "ttl_days": 30})
	var again memoryAnswer
	wait.Until(t, 10*time.Second, "a save of the same memory restarting its expiry", func() bool {
		again = saveMemory(t, srv, user, "trip", map[string]any{"type": "goal", "content": "Visit Kyoto in spring."})
		return again.ExpiresAt != nil && again.ExpiresAt.After(*first.ExpiresAt)
	})
	if again.Version <= first.Version || again.ExpiresAt.Sub(time.Now().AddDate(0, 0, 30)).Abs() > time.Minute {
		t.Errorf("restated: %+v after %+v, want a new version expiring 30 days from now", again, first)
	}
	if code := srv.Do(http.MethodPut, "/v1/users/"+user+"/memories/bad", map[string]any{"type": "fact", "content": "x", "ttl_days": -1}, nil); code != http.StatusUnprocessableEntity {
		t.Errorf("ttl_days -1 = %d, want 422", code)
	}
}

func standingCases(t *testing.T, srv *Server, prefix string) {
	t.Run("carol", func(t *testing.T) { carolCase(t, srv, prefix+"carol") })
	t.Run("pairs", func(t *testing.T) { pairsCase(t, srv, prefix+"pairs") })
	t.Run("long_query", func(t *testing.T) { longQueryCase(t, srv, prefix+"long") })
	t.Run("pinned", func(t *testing.T) { pinnedCase(t, srv, prefix+"pinned") })
	t.Run("ttl", func(t *testing.T) { ttlCase(t, srv, prefix+"ttl") })
}

// standingEnv extracts soon after a turn.
var standingEnv = []string{"LONG_TERM_MEMORY_DEBOUNCE_SEC=0.2"}

func TestStandingContext_onTheEmbeddedDefault(t *testing.T) {
	srv := Start(t, append([]string{"ENGRAM_DATA_DIR=" + t.TempDir()}, standingEnv...)...)
	standingCases(t, srv, "")
	srv.Stop()
}

func TestStandingContext_onPostgresAndRedis_Postgres_Redis(t *testing.T) {
	srv, _, _ := startOnPostgresAndRedis(t, standingEnv...)
	standingCases(t, srv, "pg-")
	srv.Stop()
}

package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"engram/domain/conversation"
)

// learnedEnv makes extraction quick and the write limit small: one new memory per
// message per run, so a message with two facts needs two runs and shows the carry.
var learnedEnv = []string{"LONG_TERM_MEMORY_DEBOUNCE_SEC=1", "LONG_TERM_MEMORY_MAX_WRITE_ITEMS=1"}

// tenFacts are the facts a new user states in one conversation, each message with
// the memory keys it must give (prefixes), and messages that must teach nothing,
// each with why.
var tenFacts = []struct {
	id, content string
	keys        []string // memory key prefixes it must give
	skip        string   // or the skip reason it must show
	renews      []string // or the keys an earlier message gave that it restates (their expiry restarts)
}{
	{"f1", "I'm allergic to peanuts.", []string{"allergy.peanut"}, "", nil},
	{"f2", "I live in Lisbon.", []string{"home.city"}, "", nil},
	{"f3", "I work as a nurse.", []string{"work.role"}, "", nil},
	{"f4", "I have type 2 diabetes so I avoid sugar.", []string{"health.diabetes"}, "", nil},
	{"f5", "I'm vegan.", []string{"diet"}, "", nil},
	{"f6", "My daughter Emma is seven.", []string{"family.daughter"}, "", nil},
	{"f7", "I speak Portuguese and English.", []string{"language.speaks.portuguese", "language.speaks.english"}, "", nil},
	{"f8", "I prefer short answers.", []string{"reply.length"}, "", nil},
	{"f9", "My name is Bob.", []string{"name"}, "", nil},
	{"f10", "Please always answer in bullet points.", []string{"reply.style"}, "", nil},
	{"n1", "Thanks!", nil, conversation.SkipThanks, nil},
	{"n2", "I'm not allergic to shellfish.", nil, "*", nil}, // no_fact or nothing_about_the_user: either says why
	{"n3", "As I said, I'm allergic to peanuts.", nil, "", []string{"allergy.peanuts"}},
}

// Ten facts posted in one conversation all become memories (across runs, when a
// message holds more than the write limit), and every message says what it
// learned — its memory events — or why it learned nothing. A message that only
// restates a memory renews it: its event is on that memory, first given by an
// earlier message.
func tenFactsFlow(t *testing.T, srv *Server, user string) {
	t.Helper()
	msgs := make([]map[string]any, 0, len(tenFacts)+1)
	for i, f := range tenFacts {
		msgs = append(msgs, map[string]any{"conversation_id": "onboarding", "message_id": f.id, "role": "user", "content": f.content,
			"created_at": time.Now().Add(time.Duration(i-len(tenFacts)) * time.Second).UTC().Format(time.RFC3339Nano)})
	}
	msgs = append(msgs, map[string]any{"conversation_id": "onboarding", "message_id": "a1", "role": "assistant",
		"content": "Noted: you are allergic to peanuts and live in Lisbon."})
	var posted struct {
		Items []struct {
			MessageID  string `json:"message_id"`
			Status     string `json:"status"`
			SkipReason string `json:"skip_reason"`
		} `json:"items"`
	}
	if code := srv.Do(http.MethodPost, "/v1/users/"+user+"/messages:batch", map[string]any{"messages": msgs}, &posted); code != http.StatusAccepted {
		t.Fatalf("batch = %d", code)
	}

	ids := make([]string, len(tenFacts))
	for i, f := range tenFacts {
		ids[i] = f.id
	}
	views := waitExtracted(t, srv, user, ids...)

	var list memoryList
	if code := srv.Do(http.MethodGet, "/v1/users/"+user+"/memories?limit=100", nil, &list); code != http.StatusOK {
		t.Fatalf("list = %d", code)
	}
	var keys, all []string
	for _, m := range list.Items {
		keys = append(keys, m.Key)
		all = append(all, fmt.Sprintf("%s ← %s: %s", m.Key, m.Source.MessageID, m.Content))
	}
	sort.Strings(all)
	for _, f := range tenFacts {
		v := views[f.id]
		var learned []string
		for _, e := range v.Events {
			learned = append(learned, e.After.Key)
		}
		if f.renews != nil {
			if !slices.Equal(learned, f.renews) {
				t.Errorf("%s %q: its events are on %v, want only the renewal of %v", f.id, f.content, learned, f.renews)
			}
			continue
		}
		if f.skip == "" {
			for _, want := range f.keys {
				if !slices.ContainsFunc(keys, func(k string) bool { return strings.HasPrefix(k, want) }) {
					t.Errorf("%s %q: no memory %s…; memories:\n%s", f.id, f.content, want, strings.Join(all, "\n"))
				}
				if !slices.ContainsFunc(learned, func(k string) bool { return strings.HasPrefix(k, want) }) {
					t.Errorf("%s %q: its events %v do not show %s…", f.id, f.content, learned, want)
				}
			}
			if v.Status != "PROCESSED" {
				t.Errorf("%s: %s %q, want PROCESSED", f.id, v.Status, v.SkipReason)
			}
			continue
		}
		switch {
		case len(v.Events) != 0:
			t.Errorf("%s %q taught %v, want nothing", f.id, f.content, learned)
		case v.SkipReason == "" || !conversation.IsSkipReason(v.SkipReason):
			t.Errorf("%s %q: %s with skip reason %q, want one of the vocabulary", f.id, f.content, v.Status, v.SkipReason)
		case f.skip != "*" && v.SkipReason != f.skip:
			t.Errorf("%s %q: skip reason %q, want %q", f.id, f.content, v.SkipReason, f.skip)
		}
	}
	if views["f7"].Attempts < 2 {
		t.Errorf("f7 (two facts, write limit 1) was run %d times, want at least 2: the second fact is carried", views["f7"].Attempts)
	}

	// The batch status says the same: posting the batch again reports each stored
	// message with its status and skip reason.
	if code := srv.Do(http.MethodPost, "/v1/users/"+user+"/messages:batch", map[string]any{"messages": msgs}, &posted); code != http.StatusOK && code != http.StatusAccepted {
		t.Fatalf("batch again = %d", code)
	}
	for _, it := range posted.Items {
		if it.Status == "PENDING" || it.Status == "FAILED" {
			t.Errorf("batch status %s: %s", it.MessageID, it.Status)
		}
		if v, ok := views[it.MessageID]; ok && it.SkipReason != v.SkipReason {
			t.Errorf("batch status %s: skip reason %q, the message says %q", it.MessageID, it.SkipReason, v.SkipReason)
		}
	}
}

func TestExtraction_tenFactsInOneConversationAreAllLearned(t *testing.T) {
	srv := Start(t, append([]string{"ENGRAM_DATA_DIR=" + t.TempDir()}, learnedEnv...)...)
	tenFactsFlow(t, srv, "bob")
	srv.Stop()
}

func TestExtraction_tenFactsInOneConversationAreAllLearned_Postgres_Redis(t *testing.T) {
	srv, _, _ := startOnPostgresAndRedis(t, learnedEnv...)
	tenFactsFlow(t, srv, "bob")
	srv.Stop()
}

// "I am allergic to peanuts, seriously." gives the peanut allergy, never an
// allergy to "seriously"; the Chinese filler the same.
func fillerFlow(t *testing.T, srv *Server, user string) {
	t.Helper()
	msgs := []map[string]any{
		{"conversation_id": "c1", "message_id": "s1", "role": "user", "content": "I am allergic to peanuts, seriously."},
		{"conversation_id": "c2", "message_id": "s2", "role": "user", "content": "我真的对青霉素过敏。"},
		{"conversation_id": "c3", "message_id": "s3", "role": "user", "content": "My friend is vegan, lol."},
	}
	if code := srv.Do(http.MethodPost, "/v1/users/"+user+"/messages:batch", map[string]any{"messages": msgs}, nil); code != http.StatusAccepted {
		t.Fatalf("batch = %d", code)
	}
	views := waitExtracted(t, srv, user, "s1", "s2", "s3")
	var list memoryList
	if code := srv.Do(http.MethodGet, "/v1/users/"+user+"/memories", nil, &list); code != http.StatusOK {
		t.Fatalf("list = %d", code)
	}
	keys := map[string]string{}
	for _, m := range list.Items {
		keys[m.Key] = m.Content
		if strings.Contains(m.Key, "serious") || strings.Contains(strings.ToLower(m.Content), "serious") {
			t.Errorf("a filler became a fact: %s %q", m.Key, m.Content)
		}
		if m.Source.MessageID == "s3" {
			t.Errorf("a friend's diet became the user's: %s %q", m.Key, m.Content)
		}
	}
	if c, ok := keys["allergy.peanuts"]; !ok || !strings.Contains(c, "peanuts") {
		t.Errorf("no allergy.peanuts: %v", keys)
	}
	if c, ok := keys["allergy.penicillin"]; !ok || strings.Contains(c, "真的") {
		t.Errorf("no allergy.penicillin without the filler: %v", keys)
	}
	if v := views["s3"]; len(v.Events) != 0 || v.SkipReason == "" {
		t.Errorf("s3 (a friend's diet) %+v, want no event and a skip reason", v)
	}
}

func TestExtraction_fillersNeverBecomeFacts(t *testing.T) {
	srv := Start(t, "ENGRAM_DATA_DIR="+t.TempDir(), "LONG_TERM_MEMORY_DEBOUNCE_SEC=1")
	fillerFlow(t, srv, "carol")
	srv.Stop()
}

func TestExtraction_fillersNeverBecomeFacts_Postgres_Redis(t *testing.T) {
	srv, _, _ := startOnPostgresAndRedis(t, "LONG_TERM_MEMORY_DEBOUNCE_SEC=1")
	fillerFlow(t, srv, "carol")
	srv.Stop()
}

package e2e

import (
	"engram/test/wait"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"
)

type memoryList struct {
	Items []struct {
		Key     string `json:"key"`
		Type    string `json:"type"`
		Content string `json:"content"`
		Source  struct {
			MessageID string `json:"message_id"`
			Channel   string `json:"channel"`
		} `json:"source"`
	} `json:"items"`
}

type messageView struct {
	Status     string `json:"status"`
	SkipReason string `json:"skip_reason"`
	Attempts   int    `json:"attempts"`
	Events     []struct {
		Op    string `json:"op"`
		After struct {
			Key string `json:"key"`
		} `json:"after"`
	} `json:"events"`
}

// The "Done when": with the embedded default (SQLite, rule extractor), two
// stable facts are learned within seconds of the debounce; a one-off reminder and
// an assistant message teach nothing.
func TestExtraction_embeddedDefaultLearnsTheTwoFactsAndNothingElse(t *testing.T) {
	srv := Start(t, "ENGRAM_DATA_DIR="+t.TempDir(), "LONG_TERM_MEMORY_DEBOUNCE_SEC=1")

	post := func(conv, id, role, content string) {
		t.Helper()
		var out struct {
			MessageID string `json:"message_id"`
			Status    string `json:"status"`
		}
		code := srv.Do(http.MethodPost, "/v1/users/alice/messages", map[string]any{
			"conversation_id": conv, "message_id": id, "role": role, "content": content,
		}, &out)
		if code != http.StatusAccepted || out.MessageID != id {
			t.Fatalf("post %s = %d %+v", id, code, out)
		}
	}
	posted := time.Now()
	post("c1", "m1", "user", "Please remember that I am allergic to peanuts.")
	post("c2", "m2", "user", "记住，以后都用中文回复我。")
	post("c3", "m3", "user", "Remind me to bring an umbrella tomorrow.")
	post("c3", "a3", "assistant", "Of course! By the way, you told me you love hiking in the Alps.")

	// A repeat of m1 is answered from the store: 200, nothing reset.
	if code := srv.Do(http.MethodPost, "/v1/users/alice/messages", map[string]any{
		"conversation_id": "c1", "message_id": "m1", "role": "user", "content": "Please remember that I am allergic to peanuts.",
	}, nil); code != http.StatusOK {
		t.Errorf("repeat of m1 = %d, want 200", code)
	}

	var views map[string]messageView
	wait.For(20*time.Second, func() bool {
		views = map[string]messageView{}
		done := true
		for _, id := range []string{"m1", "m2", "m3", "a3"} {
			var v messageView
			if code := srv.Do(http.MethodGet, "/v1/users/alice/messages/"+id, nil, &v); code != http.StatusOK {
				t.Fatalf("get %s = %d", id, code)
			}
			views[id] = v
			done = done && v.Status != "PENDING"
		}
		return done
	})
	t.Logf("extracted %.1fs after posting (debounce 1s)", time.Since(posted).Seconds())

	var list memoryList
	if code := srv.Do(http.MethodGet, "/v1/users/alice/memories", nil, &list); code != http.StatusOK {
		t.Fatalf("list = %d", code)
	}
	var got []string
	for _, m := range list.Items {
		got = append(got, m.Key+" ← "+m.Source.MessageID+": "+m.Content)
		if m.Source.Channel != "extraction" {
			t.Errorf("%s came from channel %q", m.Key, m.Source.Channel)
		}
	}
	sort.Strings(got)
	if len(list.Items) != 2 {
		t.Fatalf("memories:\n%s\nwant exactly the peanut allergy and the reply language", strings.Join(got, "\n"))
	}
	sources := map[string]string{}
	for _, m := range list.Items {
		sources[m.Source.MessageID] = m.Content
	}
	if !strings.Contains(sources["m1"], "peanut") || !strings.Contains(sources["m2"], "中文") {
		t.Errorf("memories:\n%s", strings.Join(got, "\n"))
	}

	if v := views["m1"]; v.Status != "PROCESSED" || v.Attempts != 1 || len(v.Events) != 1 || v.Events[0].Op != "ADD" {
		t.Errorf("m1 %+v", v)
	}
	if v := views["m2"]; v.Status != "PROCESSED" || len(v.Events) != 1 {
		t.Errorf("m2 %+v", v)
	}
	if v := views["m3"]; v.Status == "PENDING" || v.Status == "FAILED" || len(v.Events) != 0 {
		t.Errorf("m3 (a reminder for tomorrow) %+v", v)
	}
	if v := views["a3"]; v.Status != "SKIPPED" || v.SkipReason != "not_from_user" || len(v.Events) != 0 {
		t.Errorf("a3 (assistant) %+v", v)
	}
	srv.Stop()
}

// A message stored while no worker runs (an api-only process) is extracted by the
// worker of the next process: the store, not process memory, holds the work.
func TestExtraction_messagesWaitForAWorker(t *testing.T) {
	dataDir := t.TempDir()
	srv := Start(t, "ENGRAM_DATA_DIR="+dataDir, "ENGRAM_ROLES=api", "LONG_TERM_MEMORY_DEBOUNCE_SEC=1")
	if code := srv.Do(http.MethodPost, "/v1/users/bob/messages:batch", map[string]any{"messages": []any{
		map[string]any{"conversation_id": "c1", "message_id": "m1", "role": "user", "content": "I live in Wuhan."},
		map[string]any{"conversation_id": "c1", "message_id": "m2", "role": "user", "content": "I work as a nurse."},
	}}, nil); code != http.StatusAccepted {
		t.Fatalf("batch = %d", code)
	}
	// No sleep proves that nobody extracts: the process says which roles it runs,
	// and the message is still PENDING once it has stopped, its debounce long past
	// by the time the next process starts.
	srv.Stop()
	if logs := srv.Logs(); !strings.Contains(logs, "roles=api") || strings.Contains(logs, "extraction worker started") {
		t.Fatalf("an api-only process must start no extraction worker; its log:\n%s", logs)
	}
	var v messageView
	probe := Start(t, "ENGRAM_DATA_DIR="+dataDir, "ENGRAM_ROLES=api")
	if probe.Do(http.MethodGet, "/v1/users/bob/messages/m1", nil, &v); v.Status != "PENDING" {
		t.Fatalf("an api-only process extracted m1: %+v", v)
	}
	probe.Stop()

	srv = Start(t, "ENGRAM_DATA_DIR="+dataDir, "ENGRAM_ROLES=worker,api")
	var list memoryList
	wait.For(20*time.Second, func() bool {
		srv.Do(http.MethodGet, "/v1/users/bob/memories", nil, &list)
		return len(list.Items) >= 2
	})
	if len(list.Items) != 2 {
		t.Errorf("memories after a worker started: %+v", list.Items)
	}
	srv.Stop()
}

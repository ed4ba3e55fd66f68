package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"engram/test/wait"
)

// Purged text leaves the traces of earlier context calls: after a memory purge
// (DELETE …/memories/k?purge=true) and after a message deleted with its memories
// (?cascade=memories), GET /v1/traces/{id} of a call that injected them answers
// the trace without their text, each item keeping an id and a purged mark; the
// memory's key, made from what it says, gives way to its purged key.
func TestTracePurge_purgedTextLeavesEarlierTraces(t *testing.T) {
	runTracePurge(t, chatBackend{backend: sqliteBackend(t)})
}

func TestTracePurge_purgedTextLeavesEarlierTraces_Postgres_Redis(t *testing.T) {
	runTracePurge(t, postgresRedisBackend(t))
}

func runTracePurge(t *testing.T, b chatBackend) {
	srv := Start(t, append(append([]string{}, b.env...), fastWorkers, fastIndexer)...)
	const user = "gina"

	// A memory purged.
	if code := srv.Do(http.MethodPut, "/v1/users/gina/memories/instrument.koalabanjo", map[string]any{"type": "fact",
		"content": "My favourite instrument is the koalabanjo."}, nil); code != http.StatusCreated {
		t.Fatalf("save = %d", code)
	}
	saved := askContext(t, srv, user, map[string]any{"query": "what is my favourite instrument"})
	if !strings.Contains(saved.Prompt, "koalabanjo") || !strings.Contains(rawTrace(t, srv, saved.TraceID), "koalabanjo") {
		t.Fatalf("the call did not inject the memory; nothing to purge from its trace:\n%s", saved.Prompt)
	}
	if code := srv.Do(http.MethodDelete, "/v1/users/gina/memories/instrument.koalabanjo?purge=true", nil, nil); code != http.StatusNoContent {
		t.Fatalf("purge = %d", code)
	}
	expectRedacted(t, srv, saved.TraceID, "koalabanjo")
	var hist struct {
		Events []struct {
			After struct {
				Key string `json:"key"`
			} `json:"after"`
		} `json:"events"`
	}
	srv.Do(http.MethodGet, "/v1/users/gina/memories/instrument.koalabanjo/history", nil, &hist)
	if len(hist.Events) != 1 || !strings.Contains(rawTrace(t, srv, saved.TraceID), `"id":"`+hist.Events[0].After.Key+`"`) {
		t.Errorf("the trace does not name the purged memory by the purged key of its history %+v", hist.Events)
	}

	// A message deleted with the memories learned from it.
	postBatch(t, srv, user, []map[string]any{{"conversation_id": "c1", "message_id": "m1", "role": "user",
		"content": "Please remember that I am allergic to emuthistle pollen."}})
	wait.Until(t, 60*time.Second, "the message extracted and searchable", func() bool {
		var v messageView
		return srv.Do(http.MethodGet, "/v1/users/gina/messages/m1", nil, &v) == http.StatusOK && v.Status != "PENDING" && len(v.Events) > 0 &&
			len(searchIn(t, srv, user, "emuthistle", "all", "lexical").Items) > 1
	})
	learned := askContext(t, srv, user, map[string]any{"query": "what am I allergic to"})
	if !strings.Contains(learned.Prompt, "emuthistle") || !strings.Contains(rawTrace(t, srv, learned.TraceID), "emuthistle") {
		t.Fatalf("the call did not inject the message or its memory:\n%s", learned.Prompt)
	}
	if code := srv.Do(http.MethodDelete, "/v1/users/gina/messages/m1?cascade=memories", nil, nil); code != http.StatusOK {
		t.Fatalf("delete with cascade = %d", code)
	}
	expectRedacted(t, srv, learned.TraceID, "emuthistle")
	if !strings.Contains(rawTrace(t, srv, learned.TraceID), `"id":"m1"`) {
		t.Error("the trace lost the deleted message's id")
	}
	srv.Stop()
}

// expectRedacted checks that the trace is still there, without the text and
// with purged marks.
func expectRedacted(t *testing.T, srv *Server, traceID, text string) {
	t.Helper()
	tr := rawTrace(t, srv, traceID)
	switch {
	case tr == "":
		t.Errorf("trace %s is gone; it should stay, without %q", traceID, text)
	case strings.Contains(strings.ToLower(tr), text):
		t.Errorf("trace %s still quotes %q: %s", traceID, text, tr)
	case !strings.Contains(tr, `"purged":true`):
		t.Errorf("trace %s has no purged mark: %s", traceID, tr)
	}
}

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
	"github.com/redis/rueidis"

	"engram/test/testenv"
	"engram/test/wait"
)

// Deleting a session deletes the chat: what the session store holds, its turns
// as stored messages (and what was derived from them), the traces of the calls
// made in it, its quotes in other traces and, with the cascade, the memories
// learned only from it. A message of the chat created before the delete is
// refused afterwards (a turn that was still on its way); on Redis, a turn still
// queued is not written back. Run on the embedded default and on
// PostgreSQL+Redis.

// chatBackend is a backend with, on PostgreSQL+Redis, the Redis the sessions live in.
type chatBackend struct {
	backend
	redisAddr, prefix string // empty on the embedded default
}

func postgresRedisBackend(t *testing.T) chatBackend {
	b := postgresBackend(t)
	addr := testenv.RedisAddr(t)
	prefix := "engram-e2e-" + strings.ToLower(ulid.Make().String())
	t.Cleanup(func() { _ = testenv.DeleteRedisPrefix(addr, prefix) })
	b.env = append(b.env, "ENGRAM_REDIS_ADDR="+addr, "ENGRAM_REDIS_KEY_PREFIX="+prefix)
	return chatBackend{backend: b, redisAddr: addr, prefix: prefix}
}

func TestSessionDelete_deletesTheChat(t *testing.T) {
	runSessionDeletion(t, chatBackend{backend: sqliteBackend(t)})
}

func TestSessionDelete_deletesTheChat_Postgres_Redis(t *testing.T) {
	runSessionDeletion(t, postgresRedisBackend(t))
}

type sessionErased struct {
	SessionID       string   `json:"session_id"`
	MessagesDeleted int      `json:"messages_deleted"`
	MemoriesPurged  []string `json:"memories_purged"`
}

// rawTrace is the trace's JSON as the API answers it, or "" when it is not found.
func rawTrace(t *testing.T, srv *Server, id string) string {
	t.Helper()
	var raw json.RawMessage
	switch code := srv.Do(http.MethodGet, "/v1/traces/"+id, nil, &raw); code {
	case http.StatusOK:
		return string(raw)
	case http.StatusNotFound:
		return ""
	default:
		t.Fatalf("trace %s = %d", id, code)
		return ""
	}
}

func runSessionDeletion(t *testing.T, b chatBackend) {
	srv := Start(t, append(append([]string{}, b.env...), fastWorkers, fastIndexer)...)
	db := b.db(t)
	const user = "dana"
	const first = "t1"
	recordTurn(t, srv, user, "s-del", first, "Please remember that I am allergic to quokkafern pollen.", "Noted: quokkafern pollen is off limits.")
	recordTurn(t, srv, user, "s-del", "t2", "My wombatharp lessons are on Tuesdays.", "Tuesdays it is.")
	recordTurn(t, srv, user, "s-keep", "t1", "I keep a pelicanlute in the attic.", "A pelicanlute, noted.")
	wait.Until(t, 60*time.Second, "the turns stored, extracted and indexed", func() bool {
		return count(t, db, `SELECT count(*) FROM conversation_messages WHERE user_id = 'dana'`) == 6 &&
			count(t, db, `SELECT count(*) FROM conversation_messages WHERE status = 'PENDING' OR vector_status <> 'SYNCED'`) == 0 &&
			count(t, db, `SELECT count(*) FROM long_term_memories WHERE vector_status <> 'SYNCED'`) == 0 &&
			len(searchIn(t, srv, user, "quokkafern", "messages", "lexical").Items) > 0
	})
	var mems memoryList
	srv.Do(http.MethodGet, "/v1/users/dana/memories", nil, &mems)
	var learned []string
	for _, m := range mems.Items {
		if strings.Contains(strings.ToLower(m.Content), "quokkafern") {
			learned = append(learned, m.Key)
		}
	}
	if len(learned) == 0 {
		t.Fatalf("nothing was learned from the chat (%+v); the cascade would not be tested", mems.Items)
	}

	// A call made in the session, and one in another session that quotes the
	// chat as past conversation and as memory.
	inSession := askContext(t, srv, user, map[string]any{"query": "when are my lessons", "session_id": "s-del"})
	other := askContext(t, srv, user, map[string]any{"query": "what am I allergic to", "session_id": "s-keep"})
	if !strings.Contains(other.Prompt, "quokkafern") {
		t.Fatalf("the other session's context does not quote the chat; nothing to redact:\n%s", other.Prompt)
	}
	if tr := rawTrace(t, srv, other.TraceID); !strings.Contains(tr, "quokkafern") {
		t.Fatalf("the other call's trace does not quote the chat: %s", tr)
	}

	var erased sessionErased
	if code := srv.Do(http.MethodDelete, "/v1/users/dana/sessions/s-del?cascade=memories", nil, &erased); code != http.StatusOK ||
		erased.MessagesDeleted != 4 || !containsAllOf(erased.MemoriesPurged, learned) {
		t.Fatalf("delete the session = %d %+v, want 200, 4 messages and %v purged", code, erased, learned)
	}

	if left := conversationMessages(t, srv, user, "s-del"); len(left) != 0 {
		t.Errorf("the chat's messages are still listed: %+v", left)
	}
	if kept := conversationMessages(t, srv, user, "s-keep"); len(kept) != 2 {
		t.Errorf("the other session's messages = %+v, want its 2", kept)
	}
	if code := srv.Do(http.MethodGet, "/v1/users/dana/sessions/s-del", nil, nil); code != http.StatusNotFound {
		t.Errorf("GET the deleted session = %d, want 404", code)
	}
	if b.redisAddr != "" {
		if left := redisTraces(t, b.redisAddr, b.prefix, "s-del"); len(left) > 0 {
			t.Errorf("Redis still holds the deleted session: %v", left)
		}
		if len(redisTraces(t, b.redisAddr, b.prefix, "s-keep")) == 0 {
			t.Error("Redis holds nothing of the other session; the scan would prove nothing")
		}
	}
	if tr := rawTrace(t, srv, inSession.TraceID); tr != "" {
		t.Errorf("the trace of the call made in the session is still there: %s", tr)
	}
	tr := rawTrace(t, srv, other.TraceID)
	if tr == "" || strings.Contains(tr, "quokkafern") || !strings.Contains(tr, `"purged":true`) {
		t.Errorf("the other call's trace = %s, want it kept without the chat's text and with purged marks", tr)
	}
	for _, k := range learned {
		if code := srv.Do(http.MethodGet, "/v1/users/dana/memories/"+k+"?include_inactive=true", nil, nil); code != http.StatusNotFound {
			t.Errorf("memory %s learned from the chat = %d, want 404", k, code)
		}
		expectOnePurge(t, srv, user, k, "quokkafern")
	}
	if got := searchIn(t, srv, user, "quokkafern wombatharp", "all", "lexical"); len(got.Items) != 0 {
		t.Errorf("search still finds the chat: %+v", got.Items)
	}
	again := askContext(t, srv, user, map[string]any{"query": "what am I allergic to and when are my lessons", "session_id": "s-new"})
	if strings.Contains(again.Prompt, "quokkafern") || strings.Contains(again.Prompt, "Tuesdays") {
		t.Errorf("the next context call brings the chat back:\n%s", again.Prompt)
	}
	if leftovers := scanTables(t, db, b.dialect, []string{"quokkafern", "wombatharp"}); len(leftovers) > 0 {
		t.Errorf("rows of the chat left:\n%s", strings.Join(leftovers, "\n"))
	}
	if code := srv.Do(http.MethodDelete, "/v1/users/dana/sessions/s-del", nil, nil); code != http.StatusNotFound {
		t.Errorf("second delete = %d, want 404", code)
	}

	// A message of the chat made before the delete is refused; a new one starts it anew.
	var refused map[string]any
	if code := srv.Do(http.MethodPost, "/v1/users/dana/messages", map[string]any{"conversation_id": "s-del", "role": "user",
		"content": "a late message", "created_at": "2026-01-01T00:00:00Z"}, &refused); code != http.StatusConflict ||
		!strings.Contains(fmt.Sprint(refused["detail"]), "was deleted") {
		t.Errorf("a message of the deleted chat made before the delete = %d %v, want 409", code, refused)
	}
	if b.redisAddr != "" {
		requeueTurn(t, b, user, "s-del", first, "Please remember that I am allergic to quokkafern pollen.")
		wait.Until(t, 30*time.Second, "the relay to handle the requeued turn", func() bool { return turnBacklog(t, b) == 0 })
		if left := conversationMessages(t, srv, user, "s-del"); len(left) != 0 {
			t.Errorf("a turn queued before the delete was written back: %+v", left)
		}
		if !strings.Contains(srv.Logs(), "the session was deleted; its queued turn is dropped") {
			t.Error("the relay did not drop the requeued turn as one of a deleted session")
		}
	}
	recordTurn(t, srv, user, "s-del", "t3", "A new start.", "Welcome back.")
	wait.Until(t, 30*time.Second, "the new turn of the session stored", func() bool {
		return len(conversationMessages(t, srv, user, "s-del")) == 2
	})
	srv.Stop()
}

func containsAllOf(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// requeueTurn puts a recorded turn back on the relay's stream, as a relay that
// read it before the delete and had not yet written it would hand it over.
func requeueTurn(t *testing.T, b chatBackend, user, sessionID, exchangeID, said string) {
	t.Helper()
	turn, _ := json.Marshal(map[string]string{"tenant": "default", "user": user, "flow": "chat", "session": sessionID, "id": exchangeID,
		"user_message": said, "assistant_message": "Noted.", "at": time.Now().Add(-time.Second).UTC().Format("2006-01-02T15:04:05.000000Z07:00")})
	redisDo(t, b, func(ctx context.Context, c rueidis.Client) error {
		return c.Do(ctx, c.B().Xadd().Key(b.prefix+":turns").Id("*").FieldValue().FieldValue("turn", string(turn)).Build()).Error()
	})
}

func turnBacklog(t *testing.T, b chatBackend) int64 {
	t.Helper()
	var n int64
	redisDo(t, b, func(ctx context.Context, c rueidis.Client) (err error) {
		n, err = c.Do(ctx, c.B().Xlen().Key(b.prefix+":turns").Build()).AsInt64()
		return err
	})
	return n
}

func redisDo(t *testing.T, b chatBackend, fn func(ctx context.Context, c rueidis.Client) error) {
	t.Helper()
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{b.redisAddr}, DisableCache: true, ForceSingleClient: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := fn(ctx, c); err != nil {
		t.Fatal(err)
	}
}

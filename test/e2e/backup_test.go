package e2e

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"engram/test/testenv"
	"engram/test/wait"
)

// TestBackup_roundTripWhileServing: a backup taken while the server runs holds
// exactly what was written before it; a restore (refused while the server runs)
// brings back that and nothing written after, searchable by vector at once.
func TestBackup_roundTripWhileServing(t *testing.T) {
	runBackupRoundTrip(t, []string{"ENGRAM_DATA_DIR=" + t.TempDir()}, false)
}

// TestBackup_roundTripWhileServing_Postgres is the same on PostgreSQL with
// pgvector, through pg_dump and pg_restore.
func TestBackup_roundTripWhileServing_Postgres(t *testing.T) {
	tools := postgresClientDir(t)
	runBackupRoundTrip(t, []string{"ENGRAM_DATA_DIR=" + t.TempDir(), "ENGRAM_DATABASE_URL=" + testenv.NewPostgresDatabase(t),
		"ENGRAM_VECTOR_BACKEND=pgvector", "PATH=" + tools + string(os.PathListSeparator) + os.Getenv("PATH")}, false)
}

// TestBackup_redisSessionsAreNotInTheBackup_Postgres_Redis: with sessions in
// Redis the database round-trips as without, the commands say that sessions are
// not in the backup, and after the restore Redis holds the sessions as they were
// before it (turns recorded after the backup included).
func TestBackup_redisSessionsAreNotInTheBackup_Postgres_Redis(t *testing.T) {
	tools := postgresClientDir(t)
	env := backendEnv(t, true)
	runBackupRoundTrip(t, append(env, "ENGRAM_VECTOR_BACKEND=pgvector", "PATH="+tools+string(os.PathListSeparator)+os.Getenv("PATH")), true)
}

// postgresClientDir is the directory of pg_dump: on PATH, or where Debian's
// PostgreSQL packages put it.
func postgresClientDir(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("pg_dump"); err == nil {
		return filepath.Dir(p)
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_dump")
	if len(found) == 0 {
		t.Fatal("pg_dump is neither on PATH nor in /usr/lib/postgresql/*/bin: install the PostgreSQL client")
	}
	return filepath.Dir(found[len(found)-1])
}

// engramCLI runs a one-shot engram command with env and returns its exit error
// and combined output.
func engramCLI(t *testing.T, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func runBackupRoundTrip(t *testing.T, env []string, redis bool) {
	env = append(env, "LONG_TERM_MEMORY_DEBOUNCE_SEC=3600")
	backup := filepath.Join(t.TempDir(), "engram.backup")
	const user = "/v1/users/alice"

	write := func(srv *Server, key, content, msgID, message, session string) {
		t.Helper()
		if code := srv.Do(http.MethodPut, user+"/memories/"+key, map[string]any{"type": "fact", "content": content}, nil); code != http.StatusCreated {
			t.Fatalf("save %s = %d", key, code)
		}
		if code := srv.Do(http.MethodPost, user+"/messages", map[string]any{
			"conversation_id": "c1", "message_id": msgID, "role": "user", "content": message,
		}, nil); code != http.StatusAccepted {
			t.Fatalf("post %s = %d", msgID, code)
		}
		if code := srv.Do(http.MethodPost, user+"/sessions/"+session+"/exchanges", map[string]any{
			"flow_id": "chat", "exchange_id": "x-" + msgID, "user_message": message, "assistant_message": "Noted.",
		}, nil); code != http.StatusAccepted {
			t.Fatalf("exchange in %s = %d", session, code)
		}
	}
	search := func(srv *Server, scope, mode, query string) []string {
		t.Helper()
		var a searchAnswer
		if code := srv.Do(http.MethodPost, user+"/search", map[string]any{"query": query, "scope": scope, "mode": mode}, &a); code != http.StatusOK {
			t.Fatalf("search %q = %d", query, code)
		}
		var ids []string
		for _, it := range a.Items {
			switch {
			case it.Memory != nil:
				ids = append(ids, it.Memory.Key)
			case it.Message != nil:
				ids = append(ids, it.Message.MessageID)
			}
		}
		return ids
	}
	has := func(ids []string, id string) bool {
		for _, x := range ids {
			if x == id {
				return true
			}
		}
		return false
	}
	sessions := func(srv *Server) map[string]int {
		t.Helper()
		var list struct {
			Items []struct {
				SessionID    string `json:"session_id"`
				MessageCount int    `json:"message_count"`
			} `json:"items"`
		}
		if code := srv.Do(http.MethodGet, user+"/sessions", nil, &list); code != http.StatusOK {
			t.Fatalf("list sessions = %d", code)
		}
		out := map[string]int{}
		for _, s := range list.Items {
			out[s.SessionID] = s.MessageCount
		}
		return out
	}

	srv := Start(t, env...)
	write(srv, "pet", "Has a golden retriever called Biscuit", "m1", "My sister plays the bassoon in an orchestra.", "s1")
	wait.Until(t, 60*time.Second, "the first memory and message are found by dense search", func() bool {
		return has(search(srv, "memories", "dense", "golden retriever Biscuit"), "pet") &&
			has(search(srv, "messages", "dense", "sister bassoon orchestra"), "m1")
	})
	if out, err := engramCLI(t, env, "backup", "--to", backup); err != nil {
		t.Fatalf("backup while serving: %v\n%s", err, out)
	} else if noted := strings.Contains(out, "session turns kept in Redis"); noted != redis {
		t.Errorf("backup with Redis=%v: the note on Redis sessions is there=%v:\n%s", redis, noted, out)
	}
	if out, err := engramCLI(t, env, "backup", "--to", backup); err == nil || !strings.Contains(out, "already exists") {
		t.Errorf("a second backup to the same file: %v\n%s", err, out)
	}

	write(srv, "car", "Drives a red vintage convertible", "m2", "We are repainting the kitchen turquoise this weekend.", "s2")
	write(srv, "hobby", "Collects antique pocket watches", "m3", "The kitchen tiles arrive on Friday.", "s1")
	wait.Until(t, 60*time.Second, "the later writes are found by dense search", func() bool {
		return has(search(srv, "memories", "dense", "red vintage convertible"), "car") &&
			has(search(srv, "messages", "dense", "repainting kitchen turquoise"), "m2")
	})
	if out, err := engramCLI(t, env, "restore", "--from", backup); err == nil || !strings.Contains(out, "stop it first") {
		t.Fatalf("restore while the server runs was not refused: %v\n%s", err, out)
	}
	if !has(search(srv, "memories", "lexical", "vintage convertible"), "car") {
		t.Fatal("the refused restore changed the running server's data")
	}
	srv.Stop()

	if out, err := engramCLI(t, env, "restore", "--from", backup); err != nil {
		t.Fatalf("restore: %v\n%s", err, out)
	}
	srv = Start(t, env...)
	if code := srv.Do(http.MethodGet, user+"/memories/pet", nil, nil); code != http.StatusOK {
		t.Errorf("the backed-up memory after the restore = %d", code)
	}
	for _, key := range []string{"car", "hobby"} {
		if code := srv.Do(http.MethodGet, user+"/memories/"+key, nil, nil); code != http.StatusNotFound {
			t.Errorf("memory %s written after the backup is there after the restore: %d", key, code)
		}
	}
	want := map[string]int{"s1": 2}
	if redis { // Redis is not restored: it holds every turn recorded
		want = map[string]int{"s1": 4, "s2": 2}
	}
	if got := sessions(srv); len(got) != len(want) || got["s1"] != want["s1"] || got["s2"] != want["s2"] {
		t.Errorf("sessions after the restore = %v, want %v", got, want)
	}
	if !has(search(srv, "memories", "dense", "golden retriever Biscuit"), "pet") {
		t.Error("the backed-up memory is not found by dense search after the restore")
	}
	if !has(search(srv, "messages", "dense", "sister bassoon orchestra"), "m1") {
		t.Error("the backed-up message is not found by dense search after the restore")
	}
	for _, q := range []string{"red vintage convertible", "antique pocket watches"} {
		if ids := search(srv, "memories", "dense", q); has(ids, "car") || has(ids, "hobby") {
			t.Errorf("dense search %q finds a memory written after the backup: %v", q, ids)
		}
	}
	for _, q := range []string{"repainting kitchen turquoise", "kitchen tiles Friday"} {
		if ids := search(srv, "messages", "auto", q); has(ids, "m2") || has(ids, "m3") {
			t.Errorf("search %q finds a message posted after the backup: %v", q, ids)
		}
	}
	srv.Stop()
}

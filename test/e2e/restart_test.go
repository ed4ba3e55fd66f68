package e2e

import (
	"context"
	"database/sql"
	"engram/test/wait"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	_ "modernc.org/sqlite" // reads the stopped server's file
)

// cursorLease reads who holds the lexical message pass's lease in a stopped
// server's SQLite file.
func cursorLease(t *testing.T, dataDir string) (holder sql.NullString) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dataDir, "engram.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := db.QueryRowContext(ctx, `SELECT holder FROM lexical_cursors WHERE name = 'lexical-messages'`).Scan(&holder); err != nil {
		t.Fatalf("read the message pass's lease: %v", err)
	}
	return holder
}

// TestServe_restartIsSearchableAtOnce: SIGTERM releases the indexer's lease of
// the lexical message pass, so a message posted right after a restart is found
// within a few seconds (the pass's 5 s lag and 1 s interval), not after the old
// process's lease lapses.
func TestServe_restartIsSearchableAtOnce(t *testing.T) {
	dataDir := t.TempDir()
	env := []string{"ENGRAM_DATA_DIR=" + dataDir, "LONG_TERM_MEMORY_DEBOUNCE_SEC=3600"}
	post := func(srv *Server, id, content string) {
		t.Helper()
		body := map[string]any{"conversation_id": "c1", "message_id": id, "role": "user", "content": content}
		if code := srv.Do(http.MethodPost, "/v1/users/alice/messages", body, nil); code != http.StatusAccepted {
			t.Fatalf("post %s = %d", id, code)
		}
	}
	found := func(srv *Server, query, id string) func() bool {
		return func() bool {
			var a searchAnswer
			srv.Do(http.MethodPost, "/v1/users/alice/search", map[string]any{"query": query, "scope": "messages", "mode": "lexical"}, &a)
			return a.first() == id
		}
	}

	srv := Start(t, env...)
	post(srv, "m1", "My sister plays the bassoon in an orchestra.")
	wait.Until(t, 30*time.Second, "the first message is searchable", found(srv, "bassoon orchestra", "m1"))
	srv.Stop()
	if holder := cursorLease(t, dataDir); holder.Valid {
		t.Errorf("after SIGTERM the message pass's lease is still held by %q", holder.String)
	}

	srv = Start(t, env...)
	posted := time.Now()
	post(srv, "m2", "We are repainting the kitchen turquoise this weekend.")
	wait.Until(t, 9*time.Second, "a message posted right after the restart is searchable", found(srv, "kitchen turquoise", "m2"))
	t.Logf("searchable %s after the restart's first post", time.Since(posted).Round(100*time.Millisecond))
	srv.Stop()
}

package e2e

import (
	"bytes"
	"database/sql"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"engram/test/wait"
)

// An erasure leaves no bytes behind in the SQLite files: after each kind of
// erasure (a memory purge, a message deleted with its memories, a session
// deleted with its memories, a user erasure) the database, its write-ahead log
// and its shared-memory index hold the erased text nowhere, although the files
// held it before. The server keeps running: this is what a backup of ./data taken
// right after the erasure holds.
func TestErasure_leavesNoBytesInTheSQLiteFiles(t *testing.T) {
	dir := t.TempDir()
	srv := Start(t, "ENGRAM_DATA_DIR="+dir, fastWorkers, fastIndexer)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "engram.db")+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	holding := func(marker string) []string {
		t.Helper()
		var in []string
		for _, name := range []string{"engram.db", "engram.db-wal", "engram.db-shm"} {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if n := bytes.Count(bytes.ToLower(data), []byte(marker)); n > 0 {
				in = append(in, name+" ("+strconv.Itoa(n)+" copies)")
			}
		}
		return in
	}
	settled := func() {
		t.Helper()
		wait.Until(t, 60*time.Second, "every message extracted and everything indexed", func() bool {
			return count(t, db, `SELECT count(*) FROM conversation_messages WHERE status = 'PENDING' OR vector_status <> 'SYNCED'`) == 0 &&
				count(t, db, `SELECT count(*) FROM long_term_memories WHERE vector_status <> 'SYNCED'`) == 0
		})
	}
	cases := []struct {
		name   string
		marker string
		write  func(marker string)
		erase  func()
	}{
		{"memory purge", "marmotzephyr", func(m string) {
			if code := srv.Do(http.MethodPut, "/v1/users/erin/memories/vault", map[string]any{"type": "fact", "content": "the vault word is " + m}, nil); code != http.StatusCreated {
				t.Fatalf("save = %d", code)
			}
			settled()
		}, func() {
			if code := srv.Do(http.MethodDelete, "/v1/users/erin/memories/vault?purge=true", nil, nil); code != http.StatusNoContent {
				t.Fatalf("purge = %d", code)
			}
		}},
		{"message cascade", "ibexmarigold", func(m string) {
			postBatch(t, srv, "erin", []map[string]any{{"conversation_id": "c1", "message_id": "m1", "role": "user",
				"content": "Please remember that I am allergic to " + m + " pollen."}})
			settled()
		}, func() {
			if code := srv.Do(http.MethodDelete, "/v1/users/erin/messages/m1?cascade=memories", nil, nil); code != http.StatusOK {
				t.Fatalf("delete the message = %d", code)
			}
		}},
		{"session delete", "lynxcornet", func(m string) {
			recordTurn(t, srv, "erin", "s1", "t1", "Please remember that I keep a "+m+" in the attic.", "A "+m+" in the attic, noted.")
			settled()
		}, func() {
			if code := srv.Do(http.MethodDelete, "/v1/users/erin/sessions/s1?cascade=memories", nil, nil); code != http.StatusOK {
				t.Fatalf("delete the session = %d", code)
			}
		}},
		{"user erasure", "otterbassoon", func(m string) {
			if code := srv.Do(http.MethodPut, "/v1/users/frank/memories/hint", map[string]any{"type": "fact", "content": "the hint is " + m}, nil); code != http.StatusCreated {
				t.Fatalf("save = %d", code)
			}
			postBatch(t, srv, "frank", []map[string]any{{"conversation_id": "c1", "message_id": "m1", "role": "user",
				"content": "Please remember that my " + m + " is blue."}})
			settled()
		}, func() {
			var job struct {
				JobID string `json:"job_id"`
			}
			if code := srv.Do(http.MethodDelete, "/v1/users/frank", nil, &job); code != http.StatusAccepted {
				t.Fatalf("erase = %d", code)
			}
			waitJob(t, srv, job.JobID)
		}},
	}
	for _, tc := range cases {
		tc.write(tc.marker)
		if len(holding(tc.marker)) == 0 {
			t.Fatalf("%s: the files never held %q; the scan would prove nothing", tc.name, tc.marker)
		}
		tc.erase()
		if left := holding(tc.marker); len(left) > 0 {
			t.Errorf("%s: %q is still in %s", tc.name, tc.marker, strings.Join(left, ", "))
		}
	}
	if !strings.Contains(srv.Logs(), `msg="job done"`) || strings.Contains(jobLines(srv.Logs()), "frank") {
		t.Errorf("the erasure job's log line must name the user by pseudonym only:\n%s", jobLines(srv.Logs()))
	}
	srv.Stop()
}

func jobLines(logs string) string {
	var out []string
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, "job") && !strings.Contains(line, "http request") {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

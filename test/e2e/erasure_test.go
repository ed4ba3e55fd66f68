package e2e

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"
	_ "modernc.org/sqlite" // the test reads the server's SQLite file

	"engram/test/fakemilvus"
	"engram/test/testenv"
	"engram/test/wait"
)

// An erasure through HTTP, as an operator runs it: a user with memories (saved and
// extracted), history, messages, a consolidation job, vectors and lexical
// documents is erased. From the 202 on nothing of the user is readable, not even
// in the organisation, and writes are refused (the api-only process below has no
// worker, so the job waits); once a
// worker has run the job, a scan of every table of the database — enumerated from
// the catalogue, so tables added later are covered — and of the vector index finds
// no row holding the user's id, content or ids, but the content-free audit record.
// Then the user starts a clean slate, and a second erasure is a no-op job.

// backend is where one run keeps its data.
type backend struct {
	name string
	env  []string
	// db opens the truth store for the scan; dialect says how to list its tables.
	db      func(t *testing.T) *sql.DB
	dialect string
	// vectors returns every row of the vector index outside the database (milvus).
	vectors func() []map[string]any
}

func sqliteBackend(t *testing.T, extra ...string) backend {
	dir := t.TempDir()
	return backend{
		name: "sqlite", env: append([]string{"ENGRAM_DATA_DIR=" + dir}, extra...), dialect: "sqlite",
		db: func(t *testing.T) *sql.DB {
			db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "engram.db")+"?mode=ro&_pragma=busy_timeout(5000)")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = db.Close() })
			return db
		},
	}
}

func postgresBackend(t *testing.T) backend {
	dsn := testenv.NewPostgresDatabase(t)
	return backend{
		name: "postgres", dialect: "postgres",
		env: []string{"ENGRAM_DATA_DIR=" + t.TempDir(), "ENGRAM_DATABASE_URL=" + dsn, "ENGRAM_VECTOR_BACKEND=pgvector"},
		db: func(t *testing.T) *sql.DB {
			db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
			t.Cleanup(func() { _ = db.Close() })
			return db
		},
	}
}

func TestErasure_userLeavesNoRowBehind(t *testing.T) {
	runErasure(t, sqliteBackend(t))
}

func TestErasure_userLeavesNoRowBehind_Postgres(t *testing.T) {
	runErasure(t, postgresBackend(t))
}

func TestErasure_userLeavesNoVectorInMilvus(t *testing.T) {
	fake := fakemilvus.Start(t)
	b := sqliteBackend(t, "ENGRAM_VECTOR_BACKEND=milvus", "MEMORY_MILVUS_URI="+fake.Addr(), "MEMORY_MILVUS_COLLECTION=erasure_e2e")
	b.vectors = func() []map[string]any {
		var all []map[string]any
		for _, c := range fake.Collections() { // the adapter names its collection after the model
			all = append(all, fake.Rows(c)...)
		}
		return all
	}
	runErasure(t, b)
}

const (
	fastWorkers = "LONG_TERM_MEMORY_DEBOUNCE_SEC=0.5"
	fastIndexer = "MEMORY_INDEX_WORKER_INTERVAL_SEC=1"
)

type erasureJob struct {
	JobID       string         `json:"job_id"`
	Kind        string         `json:"kind"`
	User        string         `json:"user"`
	RequestedBy string         `json:"requested_by"`
	Status      string         `json:"status"`
	Counts      map[string]int `json:"counts"`
}

func runErasure(t *testing.T, b backend) {
	full := append(append([]string{}, b.env...), fastWorkers, fastIndexer)
	srv := Start(t, full...)

	// Alice's data carries markers no one else's does; bob's must survive.
	aliceMsgs := []map[string]any{
		{"conversation_id": "alice-conv", "message_id": "alice-m1", "role": "user", "content": "Please remember that I am allergic to zebrafinch feathers."},
		{"conversation_id": "alice-conv", "message_id": "alice-m2", "role": "assistant", "content": "Noted: zebrafinch feathers are off limits."},
		{"conversation_id": "alice-conv", "message_id": "alice-m3", "role": "user", "content": "I play the theremin every evening."},
		// An identity slot: the profile's nickname and a name key of the org graph.
		{"conversation_id": "alice-conv", "message_id": "alice-m4", "role": "user", "content": "Please call me Numbatcaptain from now on."},
	}
	postBatch(t, srv, "alice", aliceMsgs)
	if code := srv.Do(http.MethodPut, "/v1/users/alice/memories/alice-instrument", map[string]any{"type": "fact", "content": "plays the theremin with a quokka"}, nil); code != http.StatusCreated {
		t.Fatalf("save alice's memory = %d", code)
	}
	if code := srv.Do(http.MethodPost, "/v1/users/alice/memories/alice-instrument/append", map[string]any{"content": "and a marimba"}, nil); code != http.StatusOK {
		t.Fatalf("append = %d", code)
	}
	if code := srv.Do(http.MethodPost, "/v1/users/alice/consolidate", nil, nil); code != http.StatusAccepted {
		t.Fatalf("consolidate = %d", code)
	}
	if code := srv.Do(http.MethodPut, "/v1/users/bob/memories/bob-city", map[string]any{"type": "fact", "content": "Bob lives in Wuhan"}, nil); code != http.StatusCreated {
		t.Fatalf("save bob's memory = %d", code)
	}
	// Alice's profile, org entry, activity and a manager's audited read of her
	// profile: step 8's stores must be purged too (the audit keeps the read, under
	// her fingerprint).
	for _, put := range []struct {
		path string
		body map[string]any
	}{
		{"/v1/org/users/carol-mgr", map[string]any{"display_name": "Carol Lead", "department": "R&D", "position": "lead"}},
		{"/v1/org/users/alice", map[string]any{"display_name": "Alice Quokkason", "department": "R&D", "position": "engineer", "manager_id": "carol-mgr"}},
		{"/v1/org/users/dan-report", map[string]any{"display_name": "Dan Report", "department": "R&D", "position": "intern", "manager_id": "alice"}},
	} {
		if code := srv.Do(http.MethodPut, put.path, put.body, nil); code != http.StatusOK && code != http.StatusCreated {
			t.Fatalf("PUT %s = %d", put.path, code)
		}
	}
	if code := srv.Do(http.MethodPatch, "/v1/users/alice/profile", map[string]any{"tone": "quokka-cheerful"}, nil, "X-Acting-User", "alice"); code != http.StatusOK {
		t.Fatalf("patch alice's profile = %d", code)
	}
	if code := srv.Do(http.MethodPost, "/v1/users/alice/activity", map[string]any{"event_id": "alice-task-1", "kind": "task_completed", "at": "2026-11-30T10:00:00Z", "duration_h": 3}, nil); code != http.StatusAccepted {
		t.Fatalf("alice's activity = %d", code)
	}
	if code := srv.Do(http.MethodGet, "/v1/users/alice/profile", nil, nil, "X-Acting-User", "carol-mgr"); code != http.StatusOK {
		t.Fatalf("the manager's read of alice's profile = %d", code)
	}
	// A short-term session turn (step 6): its session rows and its two messages.
	if code := srv.Do(http.MethodPost, "/v1/users/alice/sessions/alice-s1/exchanges", map[string]any{"flow_id": "alice-flow",
		"user_message": "I keep a wombatlounge diary.", "assistant_message": "A wombatlounge diary, noted."}, nil); code != http.StatusAccepted {
		t.Fatalf("alice's exchange = %d", code)
	}
	// A conversation of the OpenAI Conversations API: its items (a tool call's
	// arguments are kept nowhere else) and its session.
	if code := srv.Do(http.MethodPost, "/openai/users/alice/v1/conversations", map[string]any{"items": []map[string]any{
		{"role": "user", "content": "Water my platypusgarden."},
		{"type": "function_call", "call_id": "call_1", "name": "water", "arguments": `{"bed":"platypusbed"}`},
	}}, nil); code != http.StatusOK {
		t.Fatalf("alice's OpenAI conversation = %d", code)
	}
	// Bob's messages come last, so the lexical pass's cursor ends on one of his.
	postBatch(t, srv, "bob", []map[string]any{
		{"conversation_id": "bob-conv", "message_id": "bob-m1", "role": "user", "content": "Please remember that I am allergic to cats."},
	})

	db := b.db(t)
	wait.Until(t, 40*time.Second, "alice's and bob's messages extracted, everything indexed, vectorised and searchable", func() bool {
		return count(t, db, `SELECT count(*) FROM conversation_messages WHERE status = 'PENDING'`) == 0 &&
			count(t, db, `SELECT count(*) FROM long_term_memories WHERE vector_status <> 'SYNCED'`) == 0 &&
			count(t, db, `SELECT count(*) FROM conversation_messages WHERE vector_status <> 'SYNCED'`) == 0 &&
			count(t, db, `SELECT count(*) FROM jobs WHERE status IN ('QUEUED', 'RUNNING')`) == 0 &&
			len(search(t, srv, "alice", "zebrafinch", "messages").Items) > 0 &&
			len(search(t, srv, "bob", "cats", "messages").Items) > 0
	})
	if n := count(t, db, `SELECT count(*) FROM long_term_memories WHERE user_id = 'alice' AND source_channel = 'extraction'`); n == 0 {
		t.Fatal("nothing was extracted from alice's messages; the erasure would not be tested on extracted memories")
	}
	// A context call (step 6): its trace holds the query and the snippets injected.
	var injected struct {
		Prompt  string `json:"prompt"`
		TraceID string `json:"trace_id"`
	}
	if code := srv.Do(http.MethodPost, "/v1/users/alice/context", map[string]any{"query": "my wombatlounge diary and the theremin quokka",
		"session_id": "alice-s1"}, &injected); code != http.StatusOK || !strings.Contains(injected.Prompt, "quokka") {
		t.Fatalf("alice's context = %d %q", code, injected.Prompt)
	}
	wait.Until(t, 10*time.Second, "alice's trace written", func() bool {
		return count(t, db, `SELECT count(*) FROM context_traces WHERE id = '`+injected.TraceID+`'`) == 1
	})
	if b.vectors != nil && len(rowsOf(b.vectors(), "alice")) == 0 {
		t.Fatal("alice has no vector in the vector store before the erasure")
	}
	if n := count(t, db, `SELECT count(*) FROM user_profiles WHERE user_id = 'alice' AND nickname = 'Numbatcaptain'`); n != 1 {
		t.Fatal("alice's nickname did not reach her profile; the erasure would not be tested on identity slots")
	}
	needles := append([]string{"alice", "zebrafinch", "theremin", "quokka", "marimba", "Quokkason", "wombatlounge", "alice-s1", "Numbatcaptain", "platypusgarden", "platypusbed"}, ids(t, db, "alice")...)
	srv.Stop()

	// An api-only process: the erasure is accepted, and waits for a worker.
	api := Start(t, append(append([]string{}, b.env...), "ENGRAM_ROLES=api")...)
	var accepted struct {
		JobID  string `json:"job_id"`
		Status string `json:"status"`
	}
	if code := api.Do(http.MethodDelete, "/v1/users/alice", nil, &accepted, "X-Acting-User", "dpo-officer"); code != http.StatusAccepted || accepted.JobID == "" {
		t.Fatalf("erase = %d %+v", code, accepted)
	}
	expectGone(t, api, "alice")
	// While it is erased, the context call finds nothing and writes no trace.
	var erasedContext struct {
		Prompt  string `json:"prompt"`
		TraceID string `json:"trace_id"`
	}
	if code := api.Do(http.MethodPost, "/v1/users/alice/context", map[string]any{"query": "zebrafinch theremin quokka wombatlounge",
		"session_id": "alice-s1"}, &erasedContext); code != http.StatusOK || erasedContext.Prompt != "" || erasedContext.TraceID != "" {
		t.Errorf("context while erasing = %d %+v, want an empty context and no trace", code, erasedContext)
	}
	var again struct {
		JobID string `json:"job_id"`
	}
	if code := api.Do(http.MethodDelete, "/v1/users/alice", nil, &again); code != http.StatusAccepted || again.JobID != accepted.JobID {
		t.Errorf("second erase while open = %d %+v, want 202 and the same job %s", code, again, accepted.JobID)
	}
	var refused problemBody
	if code := api.Do(http.MethodPut, "/v1/users/alice/memories/new-key", map[string]any{"type": "fact", "content": "written while erasing"}, &refused); code != http.StatusConflict ||
		!strings.Contains(refused.Detail, accepted.JobID) {
		t.Errorf("save while erasing = %d %+v, want 409 naming the job", code, refused)
	}
	if code := api.Do(http.MethodPost, "/v1/users/alice/messages", map[string]any{"conversation_id": "c", "role": "user", "content": "hello"}, nil); code != http.StatusConflict {
		t.Errorf("post while erasing = %d, want 409", code)
	}
	if code := api.Do(http.MethodPatch, "/v1/users/alice/profile", map[string]any{"nickname": "Numbatcaptain"}, nil, "X-Acting-User", "alice"); code != http.StatusConflict {
		t.Errorf("profile patch while erasing = %d, want 409", code)
	}
	if got := search(t, api, "bob", "cats", "all"); len(got.Items) == 0 {
		t.Error("bob's search found nothing while alice is erased")
	}
	expectOrgHides(t, api, accepted.JobID)
	api.Stop()

	// A worker runs the job.
	srv = Start(t, full...)
	job := waitJob(t, srv, accepted.JobID)
	for _, kind := range []string{"memories", "memory_events", "messages", "message_embeddings", "jobs", "vectors", "lexical_docs", "traces"} {
		if job.Counts[kind] == 0 {
			t.Errorf("the job removed no %s: %v", kind, job.Counts)
		}
	}
	if want := len(aliceMsgs) + 2; job.Counts["messages"] != want { // + the exchange's two
		t.Errorf("the job removed %d messages, want %d", job.Counts["messages"], want)
	}
	sum := sha256.Sum256([]byte("default\x00alice"))
	if job.User != hex.EncodeToString(sum[:]) || job.RequestedBy != "dpo-officer" || job.Kind != "erase_user" {
		t.Errorf("the audit record %+v must name alice by fingerprint and say who asked", job)
	}
	expectGone(t, srv, "alice")
	if leftovers := scanTables(t, db, b.dialect, needles); len(leftovers) > 0 {
		t.Errorf("rows of alice left after the erasure:\n%s", strings.Join(leftovers, "\n"))
	}
	if n := count(t, db, `SELECT count(*) FROM jobs WHERE id = '`+accepted.JobID+`'`); n != 1 {
		t.Errorf("the audit record is gone (%d rows)", n)
	}
	if b.vectors != nil {
		if left := rowsOf(b.vectors(), needles...); len(left) > 0 {
			t.Errorf("alice's vectors left in the vector store: %v", left)
		}
		if len(rowsOf(b.vectors(), "bob")) == 0 {
			t.Error("bob's vectors went too")
		}
	}
	var bobs memoryList
	if srv.Do(http.MethodGet, "/v1/users/bob/memories", nil, &bobs); len(bobs.Items) == 0 {
		t.Error("bob's memories went too")
	}

	// A clean slate: the same key and message ids are new.
	if code := srv.Do(http.MethodPut, "/v1/users/alice/memories/alice-instrument", map[string]any{"type": "fact", "content": "plays the cello now"}, nil); code != http.StatusCreated {
		t.Errorf("save after the erasure = %d, want 201 (a new memory)", code)
	}
	var hist struct {
		Events []struct {
			Op     string          `json:"op"`
			Before *map[string]any `json:"before"`
		} `json:"events"`
	}
	srv.Do(http.MethodGet, "/v1/users/alice/memories/alice-instrument/history", nil, &hist)
	if len(hist.Events) != 1 || hist.Events[0].Op != "ADD" || hist.Events[0].Before != nil {
		t.Errorf("history after the erasure = %+v, want one ADD without before", hist.Events)
	}
	var reposted struct {
		Items []struct {
			Created bool `json:"created"`
		} `json:"items"`
	}
	if code := srv.Do(http.MethodPost, "/v1/users/alice/messages:batch", map[string]any{"messages": aliceMsgs[:1]}, &reposted); code != http.StatusAccepted ||
		len(reposted.Items) != 1 || !reposted.Items[0].Created {
		t.Errorf("message alice-m1 posted again = %d %+v, want it created anew", code, reposted)
	}
	// Lexically: until scores are calibrated, auto answers an unrelated query too.
	if got := searchIn(t, srv, "alice", "theremin quokka", "memories", "lexical"); len(got.Items) != 0 {
		t.Errorf("the erased memory is found again: %+v", got.Items)
	}
	if got := searchIn(t, srv, "alice", "cello", "memories", "lexical"); len(got.Items) != 1 {
		t.Errorf("the new memory is not found: %+v", got.Items)
	}

	// Erasing again is a new job that finds only the clean slate's writes.
	var second struct {
		JobID string `json:"job_id"`
	}
	if code := srv.Do(http.MethodDelete, "/v1/users/alice", nil, &second); code != http.StatusAccepted || second.JobID == accepted.JobID {
		t.Fatalf("erase after DONE = %d %+v, want a new job", code, second)
	}
	if j := waitJob(t, srv, second.JobID); j.Counts["memories"] != 1 || j.Counts["messages"] != 1 {
		t.Errorf("the second erasure removed %v, want the one new memory and message", j.Counts)
	}
	srv.Stop()
}

// expectOrgHides checks that the organisation shows nothing of alice while she
// is being erased (as after the purge: her report dan-report has no manager) and
// refuses her entry with a 409 naming the job.
func expectOrgHides(t *testing.T, srv *Server, jobID string) {
	t.Helper()
	if code := srv.Do(http.MethodGet, "/v1/org/users/alice", nil, nil); code != http.StatusNotFound {
		t.Errorf("GET /v1/org/users/alice while erasing = %d, want 404", code)
	}
	var dan struct {
		ManagerID string   `json:"manager_id"`
		Managers  []string `json:"managers"`
	}
	if code := srv.Do(http.MethodGet, "/v1/org/users/dan-report", nil, &dan); code != http.StatusOK || dan.ManagerID != "" || len(dan.Managers) != 0 {
		t.Errorf("GET /v1/org/users/dan-report = %d %+v, want no manager while alice is erased", code, dan)
	}
	for _, path := range []string{"/v1/org/users?name=Alice%20Quokkason", "/v1/org/users?name=alice", "/v1/org/users"} {
		var found struct {
			Items []struct {
				UserID    string `json:"user_id"`
				ManagerID string `json:"manager_id"`
			} `json:"items"`
		}
		if code := srv.Do(http.MethodGet, path, nil, &found); code != http.StatusOK {
			t.Errorf("GET %s = %d", path, code)
		}
		for _, u := range found.Items {
			if u.UserID == "alice" || u.ManagerID == "alice" {
				t.Errorf("GET %s shows alice while she is erased: %+v", path, found.Items)
			}
		}
	}
	var refused problemBody
	if code := srv.Do(http.MethodPut, "/v1/org/users/alice", map[string]any{"display_name": "Alice Again"}, &refused); code != http.StatusConflict ||
		!strings.Contains(refused.Detail, jobID) {
		t.Errorf("PUT /v1/org/users/alice while erasing = %d %+v, want 409 naming the job", code, refused)
	}
}

type problemBody struct {
	Status int    `json:"status"`
	Detail string `json:"detail"`
}

func postBatch(t *testing.T, srv *Server, user string, msgs []map[string]any) {
	t.Helper()
	if code := srv.Do(http.MethodPost, "/v1/users/"+user+"/messages:batch", map[string]any{"messages": msgs}, nil); code != http.StatusAccepted {
		t.Fatalf("post %s's messages = %d", user, code)
	}
}

func search(t *testing.T, srv *Server, user, query, scope string) searchAnswer {
	t.Helper()
	return searchIn(t, srv, user, query, scope, "auto")
}

func searchIn(t *testing.T, srv *Server, user, query, scope, mode string) searchAnswer {
	t.Helper()
	var a searchAnswer
	if code := srv.Do(http.MethodPost, "/v1/users/"+user+"/search", map[string]any{"query": query, "scope": scope, "mode": mode}, &a); code != http.StatusOK {
		t.Fatalf("search %s %q = %d", user, query, code)
	}
	return a
}

// expectGone checks that every read of the user answers as for a user that never
// existed.
func expectGone(t *testing.T, srv *Server, user string) {
	t.Helper()
	for _, path := range []string{"/memories/alice-instrument", "/memories/alice-instrument/history", "/messages/alice-m1",
		"/sessions/alice-s1?flow_id=alice-flow"} {
		if code := srv.Do(http.MethodGet, "/v1/users/"+user+path, nil, nil); code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", path, code)
		}
	}
	var list struct {
		Items []any `json:"items"`
	}
	for _, path := range []string{"/memories?include_inactive=true", "/messages", "/sessions"} {
		list.Items = nil
		if code := srv.Do(http.MethodGet, "/v1/users/"+user+path, nil, &list); code != http.StatusOK || len(list.Items) != 0 {
			t.Errorf("GET %s = %d with %d items, want 200 and none", path, code, len(list.Items))
		}
	}
	for _, mode := range []string{"auto", "lexical", "full_inject"} {
		var a searchAnswer
		body := map[string]any{"query": "zebrafinch theremin quokka", "scope": "all", "mode": mode}
		if mode == "full_inject" {
			body["scope"] = "memories"
		}
		if code := srv.Do(http.MethodPost, "/v1/users/"+user+"/search", body, &a); code != http.StatusOK || len(a.Items) != 0 {
			t.Errorf("search (%s) = %d with %d items, want none", mode, code, len(a.Items))
		}
	}
	if code := srv.Do(http.MethodGet, "/v1/users/"+user+"/traces/latest", nil, nil); code != http.StatusNotFound {
		t.Errorf("GET traces/latest = %d, want 404", code)
	}
	var users struct {
		Items []struct {
			UserID string `json:"user_id"`
		} `json:"items"`
	}
	srv.Do(http.MethodGet, "/v1/users", nil, &users)
	for _, u := range users.Items {
		if u.UserID == user {
			t.Errorf("GET /v1/users still lists %s", user)
		}
	}
}

func waitJob(t *testing.T, srv *Server, id string) erasureJob {
	t.Helper()
	var job erasureJob
	wait.Until(t, 30*time.Second, "job "+id+" DONE", func() bool {
		job = erasureJob{}
		return srv.Do(http.MethodGet, "/v1/jobs/"+id, nil, &job) == http.StatusOK && job.Status == "DONE"
	})
	return job
}

func count(t *testing.T, db *sql.DB, query string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// ids returns the ids of every row of the user in the truth tables, read before the
// erasure: after it, no table may hold one of them.
func ids(t *testing.T, db *sql.DB, user string) []string {
	t.Helper()
	var out []string
	for _, table := range []string{"long_term_memories", "memory_events", "conversation_messages", "jobs"} {
		rows, err := db.Query(`SELECT id FROM ` + table + ` WHERE user_id = '` + user + `'`)
		if err != nil {
			t.Fatalf("ids of %s: %v", table, err)
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			out = append(out, id)
		}
		_ = rows.Close()
	}
	if len(out) < 5 {
		t.Fatalf("only %d ids of %s found; the scan would prove little", len(out), user)
	}
	return out
}

// scanTables reads every row of every table of the database, whatever the
// migrations created, and reports the cells holding any of needles.
func scanTables(t *testing.T, db *sql.DB, dialect string, needles []string) []string {
	t.Helper()
	list := `SELECT name FROM sqlite_master WHERE type = 'table'`
	if dialect == "postgres" {
		list = `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`
	}
	rows, err := db.Query(list)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	_ = rows.Close()
	for _, want := range []string{"long_term_memories", "memory_events", "conversation_messages", "message_embeddings", "jobs", "lexical_docs", "lexical_users"} {
		if !slices.Contains(tables, want) {
			t.Fatalf("table %s is not in the catalogue %v", want, tables)
		}
	}
	var found []string
	for _, table := range tables {
		found = append(found, scanTable(t, db, table, needles)...)
	}
	return found
}

func scanTable(t *testing.T, db *sql.DB, table string, needles []string) []string {
	t.Helper()
	rows, err := db.Query(`SELECT * FROM "` + table + `"`)
	if err != nil {
		t.Fatalf("scan %s: %v", table, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for rows.Next() {
		cells := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range cells {
			ptrs[i] = &cells[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatalf("scan %s: %v", table, err)
		}
		for i, c := range cells {
			var text string
			switch v := c.(type) {
			case nil:
				continue
			case []byte:
				text = string(v)
			default:
				text = fmt.Sprint(v)
			}
			for _, n := range needles {
				if strings.Contains(text, n) {
					found = append(found, fmt.Sprintf("%s.%s holds %q: %.120s", table, cols[i], n, text))
				}
			}
		}
	}
	return found
}

// rowsOf returns the rows of a vector store holding any of needles in a text field.
func rowsOf(rows []map[string]any, needles ...string) []map[string]any {
	var out []map[string]any
	for _, r := range rows {
		for _, v := range r {
			s, ok := v.(string)
			if !ok {
				continue
			}
			if slices.ContainsFunc(needles, func(n string) bool { return strings.Contains(s, n) }) {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// Deleting one message, with and without the memories learned from it, and
// purging one memory, through HTTP.
func TestErasure_messageCascadeAndMemoryPurge(t *testing.T) {
	runDeletions(t, sqliteBackend(t))
}

func TestErasure_messageCascadeAndMemoryPurge_Postgres(t *testing.T) {
	runDeletions(t, postgresBackend(t))
}

func runDeletions(t *testing.T, b backend) {
	srv := Start(t, append(append([]string{}, b.env...), fastWorkers, fastIndexer)...)
	db := b.db(t)
	postBatch(t, srv, "carol", []map[string]any{
		{"conversation_id": "c1", "message_id": "m1", "role": "user", "content": "Please remember that I am allergic to peanuts."},
		{"conversation_id": "c1", "message_id": "m2", "role": "user", "content": "记住，以后都用中文回复我。"},
		{"conversation_id": "c1", "message_id": "m3", "role": "user", "content": "The pistachio gelato here is great."},
	})
	wait.Until(t, 40*time.Second, "carol's messages extracted, vectorised and searchable", func() bool {
		return count(t, db, `SELECT count(*) FROM conversation_messages WHERE status = 'PENDING' OR vector_status <> 'SYNCED'`) == 0 &&
			len(searchIn(t, srv, "carol", "pistachio gelato", "messages", "lexical").Items) > 0
	})
	learned := func(id string) []string {
		t.Helper()
		var v messageView
		if code := srv.Do(http.MethodGet, "/v1/users/carol/messages/"+id, nil, &v); code != http.StatusOK {
			t.Fatalf("get %s = %d", id, code)
		}
		var keys []string
		for _, e := range v.Events {
			keys = append(keys, e.After.Key)
		}
		return keys
	}
	fromM1, fromM2 := learned("m1"), learned("m2")
	if len(fromM1) == 0 || len(fromM2) == 0 {
		t.Fatalf("m1 taught %v and m2 %v; the cascade needs a memory from each", fromM1, fromM2)
	}

	var erased struct {
		MessageID      string   `json:"message_id"`
		MemoriesPurged []string `json:"memories_purged"`
	}
	if code := srv.Do(http.MethodDelete, "/v1/users/carol/messages/m1?cascade=memories", nil, &erased); code != http.StatusOK ||
		erased.MessageID != "m1" || !slices.Equal(erased.MemoriesPurged, fromM1) {
		t.Fatalf("cascade = %d %+v, want 200 with %v", code, erased, fromM1)
	}
	if code := srv.Do(http.MethodGet, "/v1/users/carol/messages/m1", nil, nil); code != http.StatusNotFound {
		t.Errorf("m1 after its deletion = %d", code)
	}
	for _, k := range fromM1 {
		if code := srv.Do(http.MethodGet, "/v1/users/carol/memories/"+k, nil, nil); code != http.StatusNotFound {
			t.Errorf("%s (learned from m1) = %d, want 404", k, code)
		}
		expectOnePurge(t, srv, "carol", k, "peanut")
	}
	for _, k := range fromM2 {
		if code := srv.Do(http.MethodGet, "/v1/users/carol/memories/"+k, nil, nil); code != http.StatusOK {
			t.Errorf("%s (learned from m2) = %d, want it kept", k, code)
		}
	}
	if got := searchIn(t, srv, "carol", "allergic peanuts", "all", "lexical"); len(got.Items) != 0 {
		t.Errorf("search still finds m1 or its memory: %+v", got.Items)
	}
	if n := count(t, db, `SELECT count(*) FROM lexical_docs WHERE user_id = 'carol' AND kind = 'message' AND deleted = FALSE`); n != 2 {
		t.Errorf("%d live message documents, want m2's and m3's", n)
	}
	if n := count(t, db, `SELECT count(*) FROM message_embeddings e WHERE NOT EXISTS (SELECT 1 FROM conversation_messages m WHERE m.id = e.id)`); n != 0 {
		t.Errorf("%d embeddings of deleted messages left", n)
	}

	// Without cascade: 204, the message goes, what was learned from it stays.
	if code := srv.Do(http.MethodDelete, "/v1/users/carol/messages/m2", nil, nil); code != http.StatusNoContent {
		t.Errorf("delete m2 = %d, want 204", code)
	}
	if code := srv.Do(http.MethodGet, "/v1/users/carol/messages/m2", nil, nil); code != http.StatusNotFound {
		t.Errorf("m2 after its deletion = %d", code)
	}
	if code := srv.Do(http.MethodGet, "/v1/users/carol/memories/"+fromM2[0], nil, nil); code != http.StatusOK {
		t.Errorf("%s went with m2 without a cascade: %d", fromM2[0], code)
	}
	if code := srv.Do(http.MethodDelete, "/v1/users/carol/messages/m9", nil, nil); code != http.StatusNotFound {
		t.Errorf("delete of an unknown message = %d, want 404", code)
	}
	var list struct {
		Items []struct {
			MessageID string `json:"message_id"`
		} `json:"items"`
	}
	if code := srv.Do(http.MethodGet, "/v1/users/carol/messages?conversation_id=c1", nil, &list); code != http.StatusOK || len(list.Items) != 1 || list.Items[0].MessageID != "m3" {
		t.Errorf("messages left = %d %+v, want m3", code, list.Items)
	}
	wait.Until(t, 20*time.Second, "m3's vector rebuilt without its deleted neighbours", func() bool {
		return count(t, db, `SELECT count(*) FROM conversation_messages WHERE user_id = 'carol' AND vector_status <> 'SYNCED'`) == 0
	})

	// purge=true: the memory and its history's content go, one PURGE stays.
	if code := srv.Do(http.MethodPut, "/v1/users/carol/memories/secret", map[string]any{"type": "fact", "content": "the vault code is 4711"}, nil); code != http.StatusCreated {
		t.Fatalf("save = %d", code)
	}
	if code := srv.Do(http.MethodPost, "/v1/users/carol/memories/secret/append", map[string]any{"content": "and the alarm is 0815"}, nil); code != http.StatusOK {
		t.Fatalf("append = %d", code)
	}
	if code := srv.Do(http.MethodDelete, "/v1/users/carol/memories/secret?purge=true", nil, nil); code != http.StatusNoContent {
		t.Fatalf("purge = %d, want 204", code)
	}
	if code := srv.Do(http.MethodGet, "/v1/users/carol/memories/secret?include_inactive=true", nil, nil); code != http.StatusNotFound {
		t.Errorf("the purged memory = %d, want 404", code)
	}
	expectOnePurge(t, srv, "carol", "secret", "4711")
	if code := srv.Do(http.MethodDelete, "/v1/users/carol/memories/secret?purge=true", nil, nil); code != http.StatusNotFound {
		t.Errorf("second purge = %d, want 404", code)
	}
	for _, needle := range []string{"4711", "0815", "peanut"} {
		if leftovers := scanTables(t, db, b.dialect, []string{needle}); len(leftovers) > 0 {
			t.Errorf("%q survives the purge:\n%s", needle, strings.Join(leftovers, "\n"))
		}
	}
	srv.Stop()
}

// expectOnePurge checks that the key's history is one PURGE event without content.
func expectOnePurge(t *testing.T, srv *Server, user, key, secret string) {
	t.Helper()
	var hist struct {
		Events []struct {
			Op     string          `json:"op"`
			Before *map[string]any `json:"before"`
			After  struct {
				Key     string `json:"key"`
				Content string `json:"content"`
			} `json:"after"`
		} `json:"events"`
	}
	if code := srv.Do(http.MethodGet, "/v1/users/"+user+"/memories/"+key+"/history", nil, &hist); code != http.StatusOK {
		t.Fatalf("history of %s = %d", key, code)
	}
	if len(hist.Events) != 1 || hist.Events[0].Op != "PURGE" || hist.Events[0].Before != nil || hist.Events[0].After.Content != "" ||
		!strings.HasPrefix(hist.Events[0].After.Key, "purged.") {
		t.Errorf("history of %s = %+v, want one content-free PURGE filed under a purged.<hash> key", key, hist.Events)
	}
	if strings.Contains(fmt.Sprint(hist), secret) {
		t.Errorf("the history of %s still says %q", key, secret)
	}
}

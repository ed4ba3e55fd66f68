package e2e

import (
	"encoding/json"
	"engram/test/wait"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Strict input through the binary: typos in query parameters, repeated and
// wrong-case JSON names, and numbers no float holds are refused naming what to
// fix, and nothing is written or listed unfiltered.
func runStrictInput(t *testing.T, srv *Server, user string) {
	t.Helper()
	base := "/v1/users/" + user
	cases := []struct {
		name, method, path string
		body               any
		status             int
		location           string
	}{
		{"a typo'd filter", http.MethodGet, base + "/messages?conversaton_id=c", nil, 400, "query.conversaton_id"},
		{"a typo'd cascade", http.MethodDelete, base + "/messages/m1?casade=memories", nil, 400, "query.casade"},
		{"a repeated field", http.MethodPut, base + "/memories/diet", json.RawMessage(`{"type":"fact","content":"a","content":"b"}`), 400, "body.content"},
		{"fields in the wrong case", http.MethodPut, base + "/memories/diet", json.RawMessage(`{"TYPE":"fact","CoNtEnT":"a"}`), 400, "body.TYPE"},
		{"a number no float holds", http.MethodPut, base + "/memories/diet", json.RawMessage(`{"type":"fact","content":"a","importance":1e309}`), 422, "body.importance"},
	}
	for _, c := range cases {
		var p struct {
			Detail string `json:"detail"`
			Errors []struct {
				Location string `json:"location"`
			} `json:"errors"`
		}
		code := srv.Do(c.method, c.path, c.body, &p)
		if code != c.status || len(p.Errors) == 0 || p.Errors[0].Location != c.location {
			t.Errorf("%s: %d %+v, want %d naming %s", c.name, code, p, c.status, c.location)
		}
	}
	var list struct {
		Items []any `json:"items"`
	}
	if code := srv.Do(http.MethodGet, base+"/memories?include_inactive=true", nil, &list); code != http.StatusOK || len(list.Items) != 0 {
		t.Errorf("a refused request wrote: %d %+v", code, list.Items)
	}
}

func TestStrictInput_onTheEmbeddedDefault(t *testing.T) {
	srv := Start(t, "ENGRAM_DATA_DIR="+t.TempDir())
	runStrictInput(t, srv, "sam")
	srv.Stop()
}

func TestStrictInput_onPostgresAndRedis_Postgres_Redis(t *testing.T) {
	srv, _, _ := startOnPostgresAndRedis(t)
	runStrictInput(t, srv, "sam")
	srv.Stop()
}

// GET /v1/users lists every data subject: a user with only a profile, only an org
// entry or only activity is listed with what is stored.
func runEveryDataSubject(t *testing.T, srv *Server) {
	t.Helper()
	if code := srv.Do(http.MethodPatch, "/v1/users/only-profile/profile", map[string]any{"nickname": "P"}, nil, "X-Acting-User", "only-profile"); code != http.StatusOK {
		t.Fatalf("profile: %d", code)
	}
	if code := srv.Do(http.MethodPut, "/v1/org/users/only-org", map[string]any{"display_name": "Olga Org"}, nil); code != http.StatusOK && code != http.StatusCreated {
		t.Fatalf("org entry: %d", code)
	}
	if code := srv.Do(http.MethodPost, "/v1/users/only-activity/activity", map[string]any{"event_id": "e1", "kind": "task_completed", "at": "2026-11-30T10:00:00Z", "duration_h": 1}, nil); code != http.StatusAccepted {
		t.Fatalf("activity: %d", code)
	}
	var users struct {
		Items []struct {
			UserID   string `json:"user_id"`
			Profile  int    `json:"profile"`
			Org      int    `json:"org"`
			Activity int    `json:"activity"`
		} `json:"items"`
	}
	if code := srv.Do(http.MethodGet, "/v1/users", nil, &users); code != http.StatusOK {
		t.Fatalf("GET /v1/users: %d", code)
	}
	// Each is counted under what it has (an org entry also seeds a profile).
	want := map[string]int{"only-activity": 2, "only-org": 1, "only-profile": 0}
	got := map[string][3]int{}
	for _, u := range users.Items {
		got[u.UserID] = [3]int{u.Profile, u.Org, u.Activity}
	}
	for user, kind := range want {
		if c, ok := got[user]; !ok || c[kind] != 1 {
			t.Errorf("GET /v1/users: %s is %v (listed %v), want 1 at %d of profile, org, activity", user, c, ok, kind)
		}
	}
}

func TestUsers_listsEveryDataSubjectOnTheEmbeddedDefault(t *testing.T) {
	srv := Start(t, "ENGRAM_DATA_DIR="+t.TempDir())
	runEveryDataSubject(t, srv)
	srv.Stop()
}

func TestUsers_listsEveryDataSubjectOnPostgresAndRedis_Postgres_Redis(t *testing.T) {
	srv, _, _ := startOnPostgresAndRedis(t)
	runEveryDataSubject(t, srv)
	srv.Stop()
}

// export → erase → import → export gives the same document, ids and times
// included; a second import writes nothing; the imported memory is found by
// search again; another user may not export.
func runExportRoundTrip(t *testing.T, srv *Server, user string) {
	t.Helper()
	base := "/v1/users/" + user
	acting := []string{"X-Acting-User", user}
	for _, content := range []string{"vegetarian", "vegetarian, eats eggs"} {
		if code := srv.Do(http.MethodPut, base+"/memories/diet", map[string]any{"type": "preference", "content": content}, nil); code != http.StatusOK && code != http.StatusCreated {
			t.Fatalf("save: %d", code)
		}
	}
	if code := srv.Do(http.MethodPost, base+"/messages", map[string]any{"conversation_id": "c1", "message_id": "m1", "role": "user", "content": "I moved to Lisbon last spring."}, nil); code != http.StatusAccepted {
		t.Fatalf("message: %d", code)
	}
	if code := srv.Do(http.MethodPost, base+"/sessions/s1/exchanges", map[string]any{"flow_id": "weekly", "flow_name": "周报生成",
		"exchange_id": "x1", "user_message": "帮我写周报", "assistant_message": "好的。"}, nil); code != http.StatusAccepted {
		t.Fatalf("exchange: %d", code)
	}
	if code := srv.Do(http.MethodPatch, base+"/profile", map[string]any{"nickname": "Vee"}, nil, acting...); code != http.StatusOK {
		t.Fatalf("profile: %d", code)
	}
	if code := srv.Do(http.MethodPut, "/v1/org/users/"+user, map[string]any{"display_name": "Vera Lind", "manager_id": "boss-" + user}, nil); code != http.StatusOK && code != http.StatusCreated {
		t.Fatalf("org: %d", code)
	}
	if code := srv.Do(http.MethodPost, base+"/activity", map[string]any{"event_id": "t1", "kind": "task_completed", "at": "2026-11-30T10:00:00Z", "duration_h": 2}, nil); code != http.StatusAccepted {
		t.Fatalf("activity: %d", code)
	}
	if code := srv.Do(http.MethodGet, base+"/profile", nil, nil, "X-Acting-User", "boss-"+user); code != http.StatusOK {
		t.Fatalf("manager read: %d", code) // an audit entry about the user
	}
	if code := srv.Do(http.MethodGet, base+"/export", nil, nil, "X-Acting-User", "stranger"); code != http.StatusForbidden {
		t.Errorf("a stranger's export: %d, want 403", code)
	}

	export := func() map[string]any {
		t.Helper()
		var doc map[string]any
		if code := srv.Do(http.MethodGet, base+"/export", nil, &doc, acting...); code != http.StatusOK {
			t.Fatalf("export: %d %v", code, doc)
		}
		return doc
	}
	// The worker settles what it derives (extraction, the profile's refresh) first.
	var first map[string]any
	wait.Until(t, 60*time.Second, "two exports in a row to be equal, with the message processed", func() bool {
		a := export()
		msgs, _ := a["messages"].([]any)
		if len(msgs) == 0 {
			return false
		}
		for _, m := range msgs {
			if m.(map[string]any)["status"] == "PENDING" {
				return false
			}
		}
		first = a
		return reflect.DeepEqual(a, export())
	})
	for _, section := range []string{"memories", "memory_history", "messages", "sessions", "profile", "org", "name_keys", "activity", "audit"} {
		if items, _ := first[section].([]any); len(items) == 0 {
			t.Errorf("the export has no %s: %v", section, first[section])
		}
	}
	if first["format"] != "engram.user-export" || first["version"] != float64(1) || first["user"] != user {
		t.Errorf("header %v %v %v", first["format"], first["version"], first["user"])
	}

	var audit struct {
		Items []struct {
			Actor  string `json:"actor"`
			Action string `json:"action"`
		} `json:"items"`
	}
	if code := srv.Do(http.MethodGet, "/v1/audit?target_user="+user+"&limit=1000", nil, &audit); code != http.StatusOK {
		t.Fatalf("audit: %d", code)
	}
	actions := map[string]bool{}
	for _, e := range audit.Items {
		actions[e.Actor+" "+e.Action] = true
	}
	if !actions["stranger user.export.denied"] || !actions[user+" user.export"] {
		t.Errorf("the audit log lacks the refused and the allowed export: %+v", audit.Items)
	}

	var job struct {
		JobID string `json:"job_id"`
	}
	if code := srv.Do(http.MethodDelete, base, nil, &job); code != http.StatusAccepted {
		t.Fatalf("erase: %d", code)
	}
	waitJob(t, srv, job.JobID)
	if empty := export(); len(empty["memories"].([]any)) != 0 || len(empty["sessions"].([]any)) != 0 {
		t.Fatalf("after the erasure the export still holds data: %v", empty)
	}

	var imported struct {
		Written map[string]int `json:"written"`
	}
	if code := srv.Do(http.MethodPost, base+"/import", first, &imported, "X-Acting-User", "stranger"); code != http.StatusForbidden {
		t.Errorf("a stranger's import: %d, want 403", code)
	}
	if code := srv.Do(http.MethodPost, base+"/import", first, &imported, acting...); code != http.StatusOK {
		t.Fatalf("import: %d %v", code, imported)
	}
	if imported.Written["memories"] < 1 || imported.Written["sessions"] != 1 {
		t.Errorf("import wrote %v", imported.Written)
	}
	if again := export(); !reflect.DeepEqual(first, again) {
		a, _ := json.MarshalIndent(first, "", " ")
		b, _ := json.MarshalIndent(again, "", " ")
		t.Errorf("export → erase → import → export differs:\nbefore %s\nafter  %s", a, b)
	}
	imported.Written = nil
	if code := srv.Do(http.MethodPost, base+"/import", first, &imported, acting...); code != http.StatusOK {
		t.Fatalf("second import: %d", code)
	}
	for section, n := range imported.Written {
		if n != 0 {
			t.Errorf("a repeated import wrote %d %s", n, section)
		}
	}
	var found struct {
		Items []struct {
			Memory *struct {
				Key string `json:"key"`
			} `json:"memory"`
		} `json:"items"`
	}
	wait.Until(t, 30*time.Second, "the imported memory to be found by lexical search", func() bool {
		code := srv.Do(http.MethodPost, base+"/search", map[string]any{"query": "vegetarian eggs", "mode": "lexical"}, &found)
		return code == http.StatusOK && len(found.Items) > 0 && found.Items[0].Memory != nil && found.Items[0].Memory.Key == "diet"
	})

	var p struct {
		Detail string `json:"detail"`
	}
	bad := map[string]any{"format": "engram.user-export", "version": 1, "user": "someone-else"}
	if code := srv.Do(http.MethodPost, base+"/import", bad, &p, acting...); code != http.StatusUnprocessableEntity || !strings.Contains(p.Detail, "user") {
		t.Errorf("a document of another user: %d %q, want 422 naming user", code, p.Detail)
	}
}

var roundTripEnv = []string{"ENGRAM_PROFILE_REFRESH_DEBOUNCE_SEC=1", "ENGRAM_PROFILE_REFRESH_MAX_WAIT_SEC=2", "LONG_TERM_MEMORY_DEBOUNCE_SEC=0.2"}

func TestExport_roundTripOnTheEmbeddedDefault(t *testing.T) {
	srv := Start(t, append([]string{"ENGRAM_DATA_DIR=" + t.TempDir()}, roundTripEnv...)...)
	runExportRoundTrip(t, srv, "vera")
	srv.Stop()
}

func TestExport_roundTripOnPostgresAndRedis_Postgres_Redis(t *testing.T) {
	srv, _, _ := startOnPostgresAndRedis(t, roundTripEnv...)
	runExportRoundTrip(t, srv, "vera-redis")
	srv.Stop()
}

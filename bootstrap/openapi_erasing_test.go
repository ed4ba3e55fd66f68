package bootstrap

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"engram/adapters/httpapi"
	"engram/ports"
)

// erasingProbe is a request of one operation for a user being erased: the path
// comes from the document (parameters filled from probeParameters), the probe adds
// the query, the body and the headers.
type erasingProbe struct {
	query, body string
	headers     []string // name, value, …
	// writesTruth: the operation writes the user's data, so it must be refused
	// with the status of a *ports.ErasingError, and document it.
	writesTruth bool
	// readsFirst: it reads what it changes before writing, and that read finds
	// nothing of a user being erased (404); the refusal is its answer only when the
	// erasure begins between the read and the write.
	readsFirst bool
}

// erasingUser is the user the probes erase; probeParameters fill the other path
// parameters.
const erasingUser = "erased"

var probeParameters = map[string]string{"user": erasingUser, "key": "diet", "message_id": "m1", "session": "s1",
	"trace_id": "no-such-trace", "report_id": "no-such-report", "name": "memory_save"}

// erasingProbes has one probe per operation of the document: an operation added
// later fails the test until it has one, and so says whether it writes a user's
// data.
var erasingProbes = map[string]erasingProbe{
	"memory_save":             {body: `{"type":"fact","content":"written while erasing"}`, writesTruth: true},
	"memory_append":           {body: `{"content":"and more"}`, writesTruth: true},
	"memory_patch":            {body: `{"pinned":true}`, writesTruth: true},
	"memory_revert":           {body: `{"event_id":"` + seededEventMarker + `"}`, writesTruth: true, readsFirst: true},
	"memory_delete":           {writesTruth: true},
	"memory_consolidate":      {writesTruth: true},
	"message_post":            {body: `{"conversation_id":"c","role":"user","content":"hello"}`, writesTruth: true},
	"message_post_batch":      {body: `{"messages":[{"conversation_id":"c","role":"user","content":"hello"}]}`, writesTruth: true},
	"session_record_exchange": {body: `{"flow_id":"f","user_message":"hi","assistant_message":"hello"}`, writesTruth: true},
	"profile_patch":           {body: `{"nickname":"Numbat"}`, writesTruth: true},
	"activity_post":           {body: `{"event_id":"e1","kind":"task_created","at":"2026-12-01T08:00:00Z"}`, writesTruth: true},
	"org_user_put":            {body: `{"display_name":"Erased Again"}`, writesTruth: true},
	"tools_call":              {body: `{"arguments":{"key":"diet","type":"fact","content":"written while erasing"}}`, writesTruth: true},
	"user_import": {body: `{"format":"engram.user-export","version":1,"user":"erased","memories":[]}`,
		headers: []string{"X-Acting-User", erasingUser}, writesTruth: true},

	// Reads, deletions and tenant-wide calls: whatever they answer, it is documented.
	"memory_get": {}, "memory_list": {}, "memory_history": {},
	"memory_search":      {body: `{"query":"vegetarian"}`},
	"memory_context":     {body: `{"query":"vegetarian","session_id":"s1"}`},
	"message_get":        {},
	"message_list":       {},
	"message_delete":     {},
	"session_list":       {},
	"session_get":        {},
	"session_delete":     {},
	"profile_get":        {headers: []string{"X-Acting-User", erasingUser}},
	"user_export":        {headers: []string{"X-Acting-User", erasingUser}},
	"profile_report":     {headers: []string{"X-Acting-User", "the-manager"}},
	"profile_reports":    {headers: []string{"X-Acting-User", "the-manager"}},
	"profile_report_get": {headers: []string{"X-Acting-User", "the-manager"}},
	"org_user_get":       {},
	"org_users":          {},
	"trace_latest":       {},
	"trace_list":         {},
	"trace_get":          {},
	"users_list":         {},
	"user_erase":         {},
	"job_get":            {},
	"audit_list":         {},
	"admin_reindex":      {},
	"tools_list":         {},
}

// seededEventMarker in a probe's body is replaced by the id of an event of the
// seeded memory, so that the revert names one that exists.
const seededEventMarker = "{event}"

// Every operation, called for a user being erased, answers a status its document
// lists; every write of the user's data answers, and documents, the status of a
// *ports.ErasingError (409). The document is the running server's and the
// operations are read from it, so a new operation is held to the rule.
func TestOpenAPI_everyOperationOfAnErasingUserAnswersADocumentedStatus(t *testing.T) {
	t.Parallel()
	refused := httpapi.StatusOf(&ports.ErasingError{JobID: "j"})
	// The api role alone: the erasure is accepted, and stays open with no worker.
	c := probeClient{t: t, base: "http://" + startServer(t, "ENGRAM_ROLES=api")}
	doc := c.document()
	event, job := c.seedAndErase()
	seen := map[string]bool{}
	for path, methods := range doc.Paths {
		if !strings.HasPrefix(path, "/v1/") {
			continue
		}
		for method, op := range methods {
			seen[op.OperationID] = true
			probe, ok := erasingProbes[op.OperationID]
			if !ok {
				t.Errorf("%s %s (%s) has no erasing probe: add one to erasingProbes, with writesTruth if it writes a user's data",
					strings.ToUpper(method), path, op.OperationID)
				continue
			}
			params := map[string]string{"job_id": job}
			for k, v := range probeParameters {
				params[k] = v
			}
			target := fillPath(path, params)
			if strings.Contains(target, "{") {
				t.Errorf("%s: no probe value for a parameter of %s: add it to probeParameters", op.OperationID, path)
				continue
			}
			if probe.query != "" {
				target += "?" + probe.query
			}
			body := strings.ReplaceAll(probe.body, seededEventMarker, event)
			status, answer := c.do(strings.ToUpper(method), target, body, probe.headers...)
			if _, ok := op.Responses[strconv.Itoa(status)]; !ok {
				t.Errorf("%s %s (%s) answered %d, which its document does not list: %s", strings.ToUpper(method), target, op.OperationID, status, answer)
			}
			if !probe.writesTruth {
				continue
			}
			if _, ok := op.Responses[strconv.Itoa(refused)]; !ok {
				t.Errorf("%s (%s) writes a user's data but does not document %d, its answer while the user is being erased",
					op.OperationID, path, refused)
			}
			if probe.readsFirst && status == http.StatusNotFound {
				continue
			}
			if status != refused || !strings.Contains(answer, job) {
				t.Errorf("%s %s (%s) while the user is erased = %d %s, want %d naming job %s",
					strings.ToUpper(method), target, op.OperationID, status, answer, refused, job)
			}
		}
	}
	for id := range erasingProbes {
		if !seen[id] {
			t.Errorf("erasingProbes has %s, which the document lacks", id)
		}
	}
}

// The purge of one memory writes the user's data too (a PURGE event).
func TestOpenAPI_aPurgeOfAnErasingUsersMemoryIsRefused(t *testing.T) {
	t.Parallel()
	refused := httpapi.StatusOf(&ports.ErasingError{JobID: "j"})
	c := probeClient{t: t, base: "http://" + startServer(t, "ENGRAM_ROLES=api")}
	_, job := c.seedAndErase()
	if status, answer := c.do(http.MethodDelete, "/v1/users/"+erasingUser+"/memories/diet?purge=true", ""); status != refused || !strings.Contains(answer, job) {
		t.Errorf("purge while erasing = %d %s, want %d naming job %s", status, answer, refused, job)
	}
}

type probeClient struct {
	t    *testing.T
	base string
}

func (c probeClient) do(method, path, body string, headers ...string) (int, string) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(bytes.TrimSpace(answer))
}

func (c probeClient) document() openAPIDoc {
	c.t.Helper()
	status, body := c.do(http.MethodGet, "/openapi.json", "")
	var doc openAPIDoc
	if err := json.Unmarshal([]byte(body), &doc); status != http.StatusOK || err != nil {
		c.t.Fatalf("GET /openapi.json = %d: %v", status, err)
	}
	return doc
}

// seedAndErase gives the user a memory, a message, an org entry under a manager
// and a profile, then erases them: it returns an event of the memory and the
// erasure's job.
func (c probeClient) seedAndErase() (event, job string) {
	c.t.Helper()
	u := "/v1/users/" + erasingUser
	for _, r := range []struct{ method, path, body string }{
		{http.MethodPut, u + "/memories/diet", `{"type":"preference","content":"vegetarian"}`},
		{http.MethodPost, u + "/messages", `{"conversation_id":"c","message_id":"m1","role":"user","content":"I am vegetarian"}`},
		{http.MethodPut, "/v1/org/users/the-manager", `{"display_name":"The Manager"}`},
		{http.MethodPut, "/v1/org/users/" + erasingUser, `{"display_name":"Erased","manager_id":"the-manager"}`},
		{http.MethodPatch, u + "/profile", `{"nickname":"Numbat"}`},
	} {
		if status, answer := c.do(r.method, r.path, r.body); status >= 300 {
			c.t.Fatalf("seed %s %s = %d %s", r.method, r.path, status, answer)
		}
	}
	var history struct {
		Events []struct {
			EventID string `json:"id"`
		} `json:"events"`
	}
	status, answer := c.do(http.MethodGet, u+"/memories/diet/history", "")
	if err := json.Unmarshal([]byte(answer), &history); status != http.StatusOK || err != nil || len(history.Events) == 0 {
		c.t.Fatalf("history = %d %s (%v)", status, answer, err)
	}
	var accepted struct {
		JobID string `json:"job_id"`
	}
	status, answer = c.do(http.MethodDelete, u, "")
	if err := json.Unmarshal([]byte(answer), &accepted); status != http.StatusAccepted || err != nil || accepted.JobID == "" {
		c.t.Fatalf("erase = %d %s (%v)", status, answer, err)
	}
	return history.Events[0].EventID, accepted.JobID
}

func fillPath(path string, params map[string]string) string {
	for name, value := range params {
		path = strings.ReplaceAll(path, "{"+name+"}", value)
	}
	return path
}

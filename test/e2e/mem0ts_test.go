package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"engram/test/wait"
)

// mem0tsDir holds mem0's npm clients (both generations) and their locked
// dependencies.
const mem0tsDir = "../mem0ts"

const acmeMem0Key = "acme-mem0-key-0123456789abcdef"

// mem0Story is what client.mjs prints.
type mem0Story struct {
	Generation string   `json:"generation"`
	Failures   []string `json:"failures"`
	HikingID   string   `json:"hikingId"`
	DietID     string   `json:"dietId"`
	CarolJob   string   `json:"carolJob"`
}

// runMem0Client runs client.mjs with telemetry off and HOME in a temporary
// directory (the client writes ~/.mem0), and decodes what it printed.
func runMem0Client(t *testing.T, node string, out any, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{"client.mjs"}, args...)...)
	cmd.Dir = mem0tsDir
	cmd.Env = append(os.Environ(), "MEM0_TELEMETRY=false", "HOME="+t.TempDir())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client.mjs %v: %v\nstdout: %s\nstderr: %s", args, err, stdout, stderr.String())
	}
	if err := json.Unmarshal(stdout, out); err != nil {
		t.Fatalf("client.mjs printed %s: %v\nstderr: %s", stdout, err, stderr.String())
	}
}

func mem0Node(t *testing.T) string {
	return nodeClient(t, mem0tsDir, "mem0ai", "--ignore-scripts", "--legacy-peer-deps")
}

// mem0's own clients, both generations, given nothing but engram's /mem0 as
// their host and an engram key, run a whole story unchanged (client.mjs
// asserts each answer), on the embedded default and on PostgreSQL with Redis;
// engram's native API then sees what the clients saw.
func TestMem0Clients_bothGenerationsUnchanged(t *testing.T) {
	runMem0Clients(t, false)
}

func TestMem0Clients_bothGenerationsUnchanged_Postgres_Redis(t *testing.T) {
	runMem0Clients(t, true)
}

func runMem0Clients(t *testing.T, postgres bool) {
	node := mem0Node(t)
	env := append(backendEnv(t, postgres), "ENGRAM_API_KEYS=acme="+acmeMem0Key)
	srv := Start(t, env...)
	stories := map[string]mem0Story{}
	for _, generation := range []string{"v3", "v2"} {
		t.Run(generation, func(t *testing.T) {
			var story mem0Story
			runMem0Client(t, node, &story, "story", generation, srv.Base+"/mem0", acmeMem0Key, generation)
			for _, f := range story.Failures {
				t.Error(f)
			}
			crossCheckMem0(t, srv, generation, story)
			stories[generation] = story
		})
	}
	observedByOperation(t, srv)
	userKeyReachesItsUserOnly(t, srv, env, stories["v3"].HikingID, stories["v2"].HikingID)
	srv.Stop()
}

// userKeyReachesItsUserOnly: a key made for v3-alice reads her memory by id,
// finds no other user's (404 in mem0's shape, as engram's own API answers a read
// by id out of reach), and lists only hers.
func userKeyReachesItsUserOnly(t *testing.T, srv *Server, env []string, hers, another string) {
	t.Helper()
	key := strings.TrimSpace(cli(t, env, "keys", "create", "--tenant", "acme", "--user", "v3-alice"))
	token := []string{"Authorization", "Token " + key}
	if code := srv.Do(http.MethodGet, "/mem0/v1/memories/"+hers+"/", nil, nil, token...); code != http.StatusOK {
		t.Errorf("her own memory with her key = %d", code)
	}
	var refused struct {
		Detail string `json:"detail"`
	}
	if code := srv.Do(http.MethodGet, "/mem0/v1/memories/"+another+"/", nil, &refused, token...); code != http.StatusNotFound ||
		!strings.Contains(refused.Detail, "Memory not found") {
		t.Errorf("another user's memory with her key = %d %+v, want 404 Memory not found, as engram's own API answers", code, refused)
	}
	var page struct {
		Results []struct {
			UserID string `json:"user_id"`
		} `json:"results"`
	}
	if code := srv.Do(http.MethodPost, "/mem0/v3/memories/", map[string]any{"filters": map[string]any{"created_at": map[string]any{"gte": "2000-01-01"}}},
		&page, token...); code != http.StatusOK || len(page.Results) == 0 {
		t.Fatalf("a listing with her key = %d %+v", code, page)
	}
	for _, m := range page.Results {
		if m.UserID != "v3-alice" {
			t.Errorf("a listing with her key shows a memory of %q", m.UserID)
		}
	}
}

// observedByOperation: the facade's requests are counted in the HTTP metrics by
// facade operation, and logged with the version the client states.
func observedByOperation(t *testing.T, srv *Server) {
	t.Helper()
	resp, err := http.Get(srv.Base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	metrics, _ := io.ReadAll(resp.Body)
	for _, op := range []string{"mem0_ping", "mem0_add", "mem0_add_v1", "mem0_list", "mem0_list_v1", "mem0_list_v2", "mem0_search",
		"mem0_search_v2", "mem0_get", "mem0_update", "mem0_history", "mem0_delete", "mem0_delete_all", "mem0_entities",
		"mem0_entity_delete", "mem0_entity_delete_v1", "mem0_batch_update", "mem0_batch_delete", "mem0_event", "mem0_events", "mem0_unsupported"} {
		if !strings.Contains(string(metrics), `operation="`+op+`"`) {
			t.Errorf("/metrics counts no request of %s", op)
		}
	}
	if !strings.Contains(srv.Logs(), "client=mem0-js/3.3.1") {
		t.Errorf("no access line names the client's X-Mem0-Client version mem0-js/3.3.1")
	}
}

// crossCheckMem0 reads through engram's native API what the clients did: the
// updated memory says the new text, the deleted ones are gone, bob's memories
// are deleted, carol's erasure job is done and dave is erased.
func crossCheckMem0(t *testing.T, srv *Server, prefix string, story mem0Story) {
	t.Helper()
	auth := bearer(acmeMem0Key)
	var list struct {
		Items []struct {
			ID       string         `json:"id"`
			Key      string         `json:"key"`
			Content  string         `json:"content"`
			AgentID  string         `json:"agent_id"`
			Metadata map[string]any `json:"metadata"`
		} `json:"items"`
	}
	if code := srv.Do(http.MethodGet, "/v1/users/"+prefix+"-alice/memories", nil, &list, auth...); code != http.StatusOK {
		t.Fatalf("alice's memories = %d", code)
	}
	var contents []string
	for _, m := range list.Items {
		contents = append(contents, m.Content)
	}
	if len(contents) != 1 || contents[0] != "I love hiking in the Dolomites" {
		t.Errorf("alice's live memories through the native API = %q, want only the updated hiking memory", contents)
	} else if m := list.Items[0]; m.ID != story.HikingID {
		t.Errorf("the hiking memory's id: native %q, mem0 %q; want one id", m.ID, story.HikingID)
	} else if m.AgentID != "travel-agent" || m.Metadata["source"] != "onboarding" {
		t.Errorf("the hiking memory through the native API: agent %q, metadata %v; want the add's travel-agent and source onboarding", m.AgentID, m.Metadata)
	}
	if code := srv.Do(http.MethodGet, "/v1/users/"+prefix+"-bob/memories", nil, &list, auth...); code != http.StatusOK || len(list.Items) != 0 {
		t.Errorf("bob's memories after delete_all = %d %+v", code, list.Items)
	}
	if story.CarolJob != "" {
		var job struct {
			Status string `json:"status"`
		}
		wait.Until(t, 60*time.Second, "carol's erasure job to be done", func() bool {
			return srv.Do(http.MethodGet, "/v1/jobs/"+story.CarolJob, nil, &job, auth...) == http.StatusOK && job.Status == "DONE"
		})
	}
	wait.Until(t, 60*time.Second, "dave to be gone from the users", func() bool {
		var users struct {
			Items []struct {
				UserID string `json:"user_id"`
			} `json:"items"`
		}
		if srv.Do(http.MethodGet, "/v1/users", nil, &users, auth...) != http.StatusOK {
			return false
		}
		for _, u := range users.Items {
			if u.UserID == prefix+"-dave" || u.UserID == prefix+"-carol" {
				return false
			}
		}
		return true
	})
}

package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"engram/test/testenv"
)

// mcptsDir holds the TypeScript client and its locked dependencies.
const mcptsDir = "../mcpts"

// nodeClient makes a Node client of dir runnable: node on the PATH, and the
// locked dependencies installed with `npm ci` when node_modules does not hold
// pkg at the version package.json pins. Without node the test skips, unless the
// run requires every service. npmFlags are added to `npm ci` (a client whose
// packages declare peers it never loads installs with --legacy-peer-deps).
func nodeClient(t *testing.T, dir, pkg string, npmFlags ...string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if testenv.Required() {
			t.Fatalf("node is not on the PATH but %s=1: install Node 20 or later", testenv.RequireServicesVar)
		}
		t.Skip("node is not on the PATH; skipping the Node client of " + dir)
	}
	var manifest struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if b, err := os.ReadFile(filepath.Join(dir, "package.json")); err != nil || json.Unmarshal(b, &manifest) != nil {
		t.Fatalf("read %s/package.json: %v", dir, err)
	}
	var installed struct {
		Version string `json:"version"`
	}
	b, _ := os.ReadFile(filepath.Join(append([]string{dir, "node_modules"}, append(strings.Split(pkg, "/"), "package.json")...)...))
	if json.Unmarshal(b, &installed) != nil || installed.Version != manifest.Dependencies[pkg] {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		npm := exec.CommandContext(ctx, "npm", append([]string{"ci", "--no-audit", "--no-fund"}, npmFlags...)...)
		npm.Dir = dir
		if out, err := npm.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
		}
	}
	return node
}

// The official TypeScript SDK's client, configured with nothing but the endpoint,
// the Authorization header and X-Engram-User, runs every tool and reads the
// memories resource; the connection is pinned to alice, so another user's
// memories can be reached neither by argument nor by URI. The same again with
// alice's own key and no header.
func TestMCP_typeScriptSDKClient(t *testing.T) {
	runTypeScriptClient(t, false)
}

func TestMCP_typeScriptSDKClient_Postgres_Redis(t *testing.T) {
	runTypeScriptClient(t, true)
}

func runTypeScriptClient(t *testing.T, postgres bool) {
	node := nodeClient(t, mcptsDir, "@modelcontextprotocol/sdk")
	env := append(backendEnv(t, postgres), "ENGRAM_API_KEYS=acme="+acmeMCPKey)
	srv := Start(t, env...)
	tenant := []string{"Authorization", "Bearer " + acmeMCPKey}
	if code := srv.Do(http.MethodPut, "/v1/users/bob/memories/secret", map[string]any{"type": "fact", "content": "Bob's private note"}, nil, tenant...); code != http.StatusCreated {
		t.Fatalf("save bob's memory: %d", code)
	}
	for _, run := range []struct {
		name, key, header string
	}{
		{"a tenant key with X-Engram-User", acmeMCPKey, "header"},
		{"alice's own key", strings.TrimSpace(cli(t, env, "keys", "create", "--tenant", "acme", "--user", "alice")), "no-header"},
	} {
		t.Run(run.name, func(t *testing.T) {
			out := runNodeClient(t, node, srv.Base+"/mcp", run.key, "alice", run.header)
			checkPinnedTypeScriptRun(t, out)
			var diet struct {
				Content string `json:"content"`
			}
			if code := srv.Do(http.MethodGet, "/v1/users/alice/memories/diet", nil, &diet, tenant...); code != http.StatusOK ||
				diet.Content != "Is vegetarian\nand avoids eggs" {
				t.Errorf("REST sees %d %+v", code, diet)
			}
			if code := srv.Do(http.MethodGet, "/v1/users/bob/memories/planted", nil, nil, tenant...); code != http.StatusNotFound {
				t.Errorf("the pinned connection planted a memory in bob's: %d", code)
			}
			if code := srv.Do(http.MethodDelete, "/v1/users/alice/memories/diet", nil, nil, tenant...); code/100 != 2 {
				t.Fatalf("reset alice's diet: %d", code)
			}
		})
	}
	srv.Stop()
}

type tsCallResult struct {
	IsError    bool           `json:"isError"`
	Text       string         `json:"text"`
	Structured map[string]any `json:"structured"`
}

type tsClientRun struct {
	Server struct {
		Name string `json:"name"`
	} `json:"server"`
	Instructions    string                  `json:"instructions"`
	Tools           []string                `json:"tools"`
	ToolsWithUserID []string                `json:"toolsWithUserID"`
	Calls           map[string]tsCallResult `json:"calls"`
	Templates       []string                `json:"templates"`
	Resources       []string                `json:"resources"`
	Resource        struct {
		Items []struct {
			Key string `json:"key"`
		} `json:"items"`
	} `json:"resource"`
	OtherResource struct {
		Read  string `json:"read"`
		Error string `json:"error"`
	} `json:"otherResource"`
}

func runNodeClient(t *testing.T, node string, args ...string) tsClientRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{"client.mjs"}, args...)...)
	cmd.Dir = mcptsDir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client.mjs: %v\nstdout: %s\nstderr: %s", err, stdout, stderr.String())
	}
	var out tsClientRun
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatalf("the client printed %s: %v", stdout, err)
	}
	return out
}

func checkPinnedTypeScriptRun(t *testing.T, out tsClientRun) {
	t.Helper()
	if out.Server.Name != "engram" || !strings.Contains(out.Instructions, "Never save") || !slices.Equal(out.Tools, mcpTools) {
		t.Errorf("server %q, tools %v, instructions %q", out.Server.Name, out.Tools, out.Instructions)
	}
	if len(out.ToolsWithUserID) != 0 {
		t.Errorf("a pinned connection's tools take user_id: %v", out.ToolsWithUserID)
	}
	for label, want := range map[string]string{
		"save": `"key":"diet"`, "append": "and avoids eggs", "save_tea": `"key":"tea"`, "list": `"key":"diet"`,
		"search": `"key":"tea"`, "delete": `"deleted":true`,
	} {
		c := out.Calls[label]
		if c.IsError || !strings.Contains(c.Text, want) || c.Structured == nil {
			t.Errorf("%s: %+v, want %s", label, c, want)
		}
	}
	if c := out.Calls["bad_type"]; !c.IsError || !strings.Contains(c.Text, "argument `type` must be one of") {
		t.Errorf("bad type: %+v", c)
	}
	for _, label := range []string{"other_user_list", "other_user_save"} {
		if c := out.Calls[label]; !c.IsError || !strings.Contains(c.Text, "this connection acts for user alice only") || strings.Contains(c.Text, "private note") {
			t.Errorf("%s: %+v, want a refusal worded for the model", label, c)
		}
	}
	slices.Sort(out.Resources)
	if len(out.Templates) != 0 || !slices.Equal(out.Resources, []string{"engram://users/alice/memories", "engram://users/alice/profile"}) {
		t.Errorf("templates %v, resources %v: want alice's resources only", out.Templates, out.Resources)
	}
	if len(out.Resource.Items) != 1 || out.Resource.Items[0].Key != "diet" {
		t.Errorf("alice's memories resource %+v", out.Resource)
	}
	if out.OtherResource.Error == "" || strings.Contains(out.OtherResource.Read, "private note") {
		t.Errorf("bob's memories resource over alice's connection: %+v", out.OtherResource)
	}
}

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
// run requires every service.
func nodeClient(t *testing.T, dir, pkg string) string {
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
		npm := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
		npm.Dir = dir
		if out, err := npm.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
		}
	}
	return node
}

// The official TypeScript SDK's client, configured with nothing but the endpoint,
// the Authorization header and X-Engram-User, runs every tool and reads the
// memories resource.
func TestMCP_typeScriptSDKClient(t *testing.T) {
	node := nodeClient(t, mcptsDir, "@modelcontextprotocol/sdk")
	srv := Start(t, "ENGRAM_DATA_DIR="+t.TempDir(), "ENGRAM_API_KEYS=acme="+acmeMCPKey)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", srv.Base+"/mcp", acmeMCPKey, "alice")
	cmd.Dir = mcptsDir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client.mjs: %v\nstdout: %s\nstderr: %s", err, stdout, stderr.String())
	}
	type callResult struct {
		IsError    bool           `json:"isError"`
		Text       string         `json:"text"`
		Structured map[string]any `json:"structured"`
	}
	var out struct {
		Server struct {
			Name string `json:"name"`
		} `json:"server"`
		Instructions string                `json:"instructions"`
		Tools        []string              `json:"tools"`
		Calls        map[string]callResult `json:"calls"`
		Templates    []string              `json:"templates"`
		Resource     struct {
			Items []struct {
				Key string `json:"key"`
			} `json:"items"`
		} `json:"resource"`
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatalf("the client printed %s: %v", stdout, err)
	}
	if out.Server.Name != "engram" || !strings.Contains(out.Instructions, "Never save") || !slices.Equal(out.Tools, mcpTools) {
		t.Errorf("server %q, tools %v, instructions %q", out.Server.Name, out.Tools, out.Instructions)
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
	if !slices.Equal(out.Templates, []string{"engram://users/{user}/memories", "engram://users/{user}/profile"}) || len(out.Resource.Items) != 1 || out.Resource.Items[0].Key != "diet" {
		t.Errorf("templates %v, resource %+v", out.Templates, out.Resource)
	}
	var diet struct {
		Content string `json:"content"`
	}
	if code := srv.Do(http.MethodGet, "/v1/users/alice/memories/diet", nil, &diet, "Authorization", "Bearer "+acmeMCPKey); code != http.StatusOK ||
		diet.Content != "Is vegetarian\nand avoids eggs" {
		t.Errorf("REST sees %d %+v", code, diet)
	}
}

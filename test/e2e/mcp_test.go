package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"engram/test/headers"
)

const (
	acmeMCPKey   = "acme-mcp-key-0123456789abcdef"
	globexMCPKey = "globex-mcp-key-0123456789abcdef"
)

var mcpTools = []string{"memory_append", "memory_context", "memory_delete", "memory_list", "memory_save", "memory_search"}

// mcpOverHTTP connects the Go SDK's client to the server's /mcp.
func mcpOverHTTP(t *testing.T, srv *Server, h map[string]string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "engram-e2e", Version: "1"}, nil)
	s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.Base + "/mcp",
		HTTPClient: &http.Client{Transport: headers.Transport(h), Timeout: 30 * time.Second}}, nil)
	if err != nil {
		t.Fatalf("connect to /mcp: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func callTool(t *testing.T, s *mcp.ClientSession, name string, arguments any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: arguments})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: content %+v", name, res.Content)
	}
	tc, _ := res.Content[0].(*mcp.TextContent)
	if tc == nil {
		t.Fatalf("%s: content is not text: %+v", name, res.Content[0])
	}
	if !res.IsError {
		var structured map[string]any
		if json.Unmarshal([]byte(tc.Text), &structured) != nil || res.StructuredContent == nil {
			t.Errorf("%s: the text %q is not the structured content %v", name, tc.Text, res.StructuredContent)
		}
	}
	return tc.Text, res.IsError
}

func toolNames(t *testing.T, s *mcp.ClientSession) []string {
	t.Helper()
	list, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// exerciseTools calls every tool as an MCP client of alice would, on a connection
// pinned to her, checking each answer; the caller checks the effect through the
// REST API.
func exerciseTools(t *testing.T, s *mcp.ClientSession) {
	t.Helper()
	if names := toolNames(t, s); !slices.Equal(names, mcpTools) {
		t.Fatalf("tools %v, want %v", names, mcpTools)
	}
	list, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if schema, _ := json.Marshal(tool.InputSchema); strings.Contains(string(schema), `"user_id"`) {
			t.Errorf("%s takes user_id on a pinned connection: %s", tool.Name, schema)
		}
	}
	if text, isError := callTool(t, s, "memory_save", map[string]any{"user_id": "bob", "key": "planted", "type": "fact", "content": "x"}); !isError ||
		!strings.Contains(text, "this connection acts for user alice only") {
		t.Errorf("a save naming bob on alice's connection: error %v, %s", isError, text)
	}
	steps := []struct {
		tool      string
		arguments map[string]any
		want      string
	}{
		{"memory_save", map[string]any{"key": "Diet", "type": "fact", "content": "Is vegetarian"}, `"key":"diet"`},
		{"memory_append", map[string]any{"key": "diet", "content": "and avoids eggs"}, `"content":"Is vegetarian\nand avoids eggs"`},
		{"memory_save", map[string]any{"key": "tea", "type": "preference", "content": "Drinks oolong tea every morning"}, `"key":"tea"`},
		{"memory_list", nil, `"key":"diet"`},
		{"memory_search", map[string]any{"query": "which tea does she drink", "mode": "lexical"}, `"key":"tea"`},
		{"memory_context", map[string]any{"query": "which tea does she drink", "budget_chars": 1000}, `- [preference] tea \u003e Drinks oolong tea every morning`},
		{"memory_delete", map[string]any{"key": "tea"}, `"deleted":true`},
	}
	for _, step := range steps {
		text, isError := callTool(t, s, step.tool, step.arguments)
		if isError || !strings.Contains(text, step.want) {
			t.Errorf("%s: error %v, %s; want %s", step.tool, isError, text, step.want)
		}
	}
	text, isError := callTool(t, s, "memory_save", map[string]any{"key": "nick", "type": "profile", "content": "x"})
	if !isError || !strings.Contains(text, "argument `type` must be one of preference, fact, goal, project, constraint; you sent `profile`") {
		t.Errorf("a bad type: error %v, %q", isError, text)
	}
}

// Over streamable HTTP, with a key and X-Engram-User pinning the connection, the
// Go SDK's client saves, appends, lists, searches and deletes; the REST API sees
// it; another tenant's key sees nothing; without a valid key /mcp is a 401.
func TestMCP_streamableHTTPWithAKey(t *testing.T) {
	srv := Start(t, "ENGRAM_DATA_DIR="+t.TempDir(), "ENGRAM_LOG_FORMAT=json",
		"ENGRAM_API_KEYS=acme="+acmeMCPKey+",globex="+globexMCPKey)
	acme := mcpOverHTTP(t, srv, map[string]string{"Authorization": "Bearer " + acmeMCPKey, "X-Engram-User": "alice"})
	if init := acme.InitializeResult(); init.ServerInfo.Name != "engram" || !strings.Contains(init.Instructions, "Never save") {
		t.Errorf("initialize: %+v", init)
	}
	exerciseTools(t, acme)

	var diet struct {
		Content string `json:"content"`
		Source  struct {
			Channel string `json:"channel"`
		} `json:"source"`
	}
	auth := []string{"Authorization", "Bearer " + acmeMCPKey}
	if code := srv.Do(http.MethodGet, "/v1/users/alice/memories/diet", nil, &diet, auth...); code != http.StatusOK ||
		diet.Content != "Is vegetarian\nand avoids eggs" || diet.Source.Channel != "tool" {
		t.Errorf("REST sees %d %+v", code, diet)
	}
	if code := srv.Do(http.MethodGet, "/v1/users/alice/memories/tea", nil, nil, auth...); code != http.StatusNotFound {
		t.Errorf("tea after memory_delete: %d", code)
	}
	if code := srv.Do(http.MethodGet, "/v1/users/alice/memories/nick", nil, nil, auth...); code != http.StatusNotFound {
		t.Errorf("a refused call stored nick: %d", code)
	}

	// The profile resource: what the user reads of their profile.
	if code := srv.Do(http.MethodPatch, "/v1/users/alice/profile", map[string]any{"display_name": "Alice Chen", "language": "en"}, nil,
		append(auth, "X-Acting-User", "alice")...); code != http.StatusOK {
		t.Fatalf("patch alice's profile = %d", code)
	}
	read, err := acme.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "engram://users/alice/profile"})
	if err != nil || len(read.Contents) != 1 || !strings.Contains(read.Contents[0].Text, `"display_name":"Alice Chen"`) {
		t.Errorf("the profile resource: %+v %v", read, err)
	}
	if _, err := acme.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "engram://users/nobody/profile"}); err == nil {
		t.Error("the profile of a user the tenant does not know was read")
	}

	// The connection is pinned to alice: naming another user of the tenant is
	// refused, in words for the model.
	if text, isError := callTool(t, acme, "memory_list", map[string]any{"user_id": "bob"}); !isError ||
		!strings.Contains(text, "names another user: this connection acts for user alice only") {
		t.Errorf("bob's memories over alice's connection: error %v, %s", isError, text)
	}
	// Another tenant's key sees nothing of alice.
	globex := mcpOverHTTP(t, srv, map[string]string{"Authorization": "Bearer " + globexMCPKey, "X-Engram-User": "alice"})
	if text, _ := callTool(t, globex, "memory_list", nil); !strings.Contains(text, `"items":[]`) {
		t.Errorf("globex sees alice's memories: %s", text)
	}
	if text, _ := callTool(t, globex, "memory_search", map[string]any{"query": "vegetarian", "mode": "lexical"}); !strings.Contains(text, `"items":[]`) {
		t.Errorf("globex finds alice's memories: %s", text)
	}

	for name, header := range map[string]string{"no key": "", "a wrong key": "Bearer wrong-key-0123456789abcdef", "not bearer": "Basic abc"} {
		resp := postMCP(t, srv, header, "req-"+strings.ReplaceAll(name, " ", "-"), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		if resp.status != http.StatusUnauthorized || !strings.HasPrefix(resp.contentType, "application/problem+json") ||
			resp.requestID == "" || !strings.Contains(resp.body, "API key") && !strings.Contains(resp.body, "Bearer") {
			t.Errorf("%s: %d %s %q (request id %q)", name, resp.status, resp.contentType, resp.body, resp.requestID)
		}
	}

	req, _ := http.NewRequest(http.MethodGet, srv.Base+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+acmeMCPKey)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusMethodNotAllowed ||
		resp.Header.Get("Allow") != "POST" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/problem+json") {
		t.Errorf("GET /mcp: %v %v", resp, err)
	} else {
		_ = resp.Body.Close()
	}

	srv.Stop()
	seen := false
	for _, rec := range accessLines(t, srv) {
		if rec["route"] == "/mcp" && rec["tenant"] == "acme" && rec["status"] == float64(200) && rec["request_id"] != "" {
			seen = true
		}
	}
	if !seen {
		t.Errorf("no access line of /mcp for acme:\n%s", srv.logs.String())
	}
}

type mcpResponse struct {
	status                       int
	contentType, requestID, body string
}

// postMCP sends one raw JSON-RPC message to /mcp, as a client library would.
func postMCP(t *testing.T, srv *Server, authorization, requestID string, body []byte) mcpResponse {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.Base+"/mcp", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	req.Header.Set("X-Request-ID", requestID)
	req.Header.Set("X-Engram-User", "alice")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return mcpResponse{resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("X-Request-ID"), string(b)}
}

// The edge's hygiene does not see inside JSON-RPC: the tool arguments are checked
// by the toolbox, so invalid UTF-8 and NUL are tool errors and store nothing.
func TestMCP_badTextInArgumentsIsAToolErrorNeverStored(t *testing.T) {
	srv := Start(t, "ENGRAM_DATA_DIR="+t.TempDir())
	for name, content := range map[string]string{
		"invalid UTF-8":         "caf\xe9",
		"NUL":                   `a\u0000b`,
		"an escaped surrogate":  `x\udc00`,
		"over the length limit": strings.Repeat("x", 1001),
	} {
		body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"memory_save","arguments":` +
			`{"key":"bad","type":"fact","content":"` + content + `"}}}`)
		resp := postMCP(t, srv, "", "bad-text", body)
		var rpc struct {
			Result struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(resp.body), &rpc); err != nil || resp.status != http.StatusOK || !rpc.Result.IsError ||
			len(rpc.Result.Content) != 1 || !strings.Contains(rpc.Result.Content[0].Text, "argument `content`") {
			t.Errorf("%s: %d %s (%v)", name, resp.status, resp.body, err)
		}
	}
	if code := srv.Do(http.MethodGet, "/v1/users/alice/memories/bad?include_inactive=true", nil, nil); code != http.StatusNotFound {
		t.Errorf("a refused call stored the memory: %d", code)
	}
}

// `engram mcp --stdio --user alice` serves a desktop client on its pipes: the Go
// SDK's client runs every tool, and the memories are there for `engram serve` on
// the same data directory.
func TestMCP_stdioForADesktopClient(t *testing.T) {
	dataDir := t.TempDir()
	cmd := exec.Command(binary, "mcp", "--stdio", "--user", "alice")
	cmd.Env = append(os.Environ(), "ENGRAM_DATA_DIR="+dataDir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "desktop", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	exerciseTools(t, s)
	if err := s.Close(); err != nil {
		t.Errorf("the server did not end cleanly when the client left: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "serving MCP on stdin/stdout") {
		t.Errorf("stderr has no start-up line:\n%s", stderr.String())
	}

	srv := Start(t, "ENGRAM_DATA_DIR="+dataDir)
	var diet struct {
		Content string `json:"content"`
	}
	if code := srv.Do(http.MethodGet, "/v1/users/alice/memories/diet", nil, &diet); code != http.StatusOK || diet.Content != "Is vegetarian\nand avoids eggs" {
		t.Errorf("serve sees %d %+v", code, diet)
	}
}

// stdout carries the protocol and nothing else, even with every log line on:
// each line is one JSON-RPC message, and the process exits when stdin closes.
func TestMCP_stdioStdoutIsOnlyProtocol(t *testing.T) {
	cmd := exec.Command(binary, "mcp", "--stdio", "--user", "alice")
	cmd.Env = append(os.Environ(), "ENGRAM_DATA_DIR="+t.TempDir(), "ENGRAM_LOG_LEVEL=debug")
	stdin, _ := cmd.StdinPipe()
	stdoutPipe, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdout := bufio.NewReader(stdoutPipe)
	for i, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_save","arguments":{"key":"diet","type":"fact","content":"Vegetarian"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
	} {
		if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
			t.Fatal(err)
		}
		line, err := stdout.ReadString('\n')
		var rpc struct {
			JSONRPC string `json:"jsonrpc"`
			ID      int    `json:"id"`
		}
		if err != nil || json.Unmarshal([]byte(line), &rpc) != nil || rpc.JSONRPC != "2.0" || rpc.ID != i+1 {
			t.Fatalf("answer %d: %q (%v)\nstderr:\n%s", i+1, line, err, stderr.String())
		}
	}
	_ = stdin.Close()
	rest, _ := io.ReadAll(stdout)
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit after stdin closed: %v\n%s", err, stderr.String())
	}
	if len(bytes.TrimSpace(rest)) != 0 {
		t.Errorf("stdout carried more than the answers: %q", rest)
	}
	if !strings.Contains(stderr.String(), "level=DEBUG") {
		t.Errorf("the logs did not go to stderr:\n%s", stderr.String())
	}
}

func TestMCPCommand_refusesWhatItCannotServe(t *testing.T) {
	for args, want := range map[string]string{
		"mcp":                                "--stdio is required",
		"mcp --stdio --roles api":            "the api role serves HTTP",
		"mcp --stdio --roles teleport":       `unknown role "teleport"`,
		"mcp --stdio --user  --tenant a/b":   "--tenant",
		"mcp --stdio --user " + "\x01" + "x": "--user",
	} {
		cmd := exec.Command(binary, strings.Split(args, " ")...)
		cmd.Env = append(os.Environ(), "ENGRAM_DATA_DIR="+t.TempDir())
		cmd.Stdin = strings.NewReader("")
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), want) {
			t.Errorf("engram %s: %v\n%s", args, err, out)
		}
	}
}

package mcpserver_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"engram/adapters/httpapi"
	"engram/adapters/mcpserver"
	"engram/adapters/ulids"
	"engram/app/memories"
	"engram/app/tools"
	"engram/domain/memory"
	"engram/test/fakeclock"
	"engram/test/headers"
	"engram/test/teststore"
)

// newServer is the MCP server over the real toolbox and the SQLite stores (search
// is left out: it is the toolbox's business, tested in httpapi).
func newServer(t *testing.T) *mcpserver.Server {
	t.Helper()
	clk := fakeclock.New(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	mem := memories.New(teststore.New(t).Memories, clk, ulids.New(), memory.Policy{DefaultTTLDays: 180})
	tb, err := httpapi.NewToolbox(httpapi.MemorySaveTool(mem), httpapi.MemoryAppendTool(mem), httpapi.MemoryDeleteTool(mem), httpapi.MemoryListTool(mem))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(tb, mcpserver.Options{Version: "test", Resources: []mcpserver.Resource{mcpserver.MemoriesResource(tb)}})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// connect serves one stdio client of tenant acme, pinned to user unless it is "",
// over a pipe and returns the client's session.
func connect(t *testing.T, srv *mcpserver.Server, user string) *mcp.ClientSession {
	t.Helper()
	serverSide, clientSide := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(ctx, serverSide, serverSide, "acme", user) }()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcp.IOTransport{Reader: clientSide, Writer: clientSide}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = session.Close()
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ServeStdio: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("ServeStdio did not return after the client left")
		}
	})
	return session
}

func call(t *testing.T, s *mcp.ClientSession, name string, arguments any) *mcp.CallToolResult {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: arguments})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

func TestInitialize_toldWhenToSaveAndWhatTheToolsAre(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for _, c := range []struct {
		user     string
		withUser bool // the schemas have a required user_id
	}{{"alice", false}, {"", true}} {
		t.Run("user "+c.user, func(t *testing.T) {
			t.Parallel()
			initializeAndList(t, connect(t, srv, c.user), c.withUser)
		})
	}
}

func initializeAndList(t *testing.T, s *mcp.ClientSession, withUser bool) {
	t.Helper()
	init := s.InitializeResult()
	if init.ServerInfo.Name != "engram" || init.Instructions != tools.Instructions {
		t.Errorf("server %+v, instructions %q", init.ServerInfo, init.Instructions)
	}
	list, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		schema, _ := json.Marshal(tool.InputSchema)
		var parsed struct {
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
		}
		_ = json.Unmarshal(schema, &parsed)
		_, hasUser := parsed.Properties["user_id"]
		if hasUser != withUser || slices.Contains(parsed.Required, "user_id") != withUser {
			t.Errorf("%s: user_id argument %v, required %v; want %v: %s", tool.Name, hasUser, parsed.Required, withUser, schema)
		}
		if ro := tool.Annotations.ReadOnlyHint; ro != (tool.Name == "memory_list") {
			t.Errorf("%s: read-only hint %v", tool.Name, ro)
		}
		if d := tool.Annotations.DestructiveHint; d == nil || *d != (tool.Name == "memory_delete") {
			t.Errorf("%s: destructive hint %v", tool.Name, d)
		}
	}
	if want := []string{"memory_append", "memory_delete", "memory_list", "memory_save"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
}

func TestCallTool_resultsAreStructuredAndText(t *testing.T) {
	t.Parallel()
	s := connect(t, newServer(t), "alice")
	res := call(t, s, "memory_save", map[string]any{"key": "Diet", "type": "fact", "content": "Is vegetarian"})
	if res.IsError {
		t.Fatalf("save failed: %s", text(res))
	}
	var fromText map[string]any
	if err := json.Unmarshal([]byte(text(res)), &fromText); err != nil || !reflect.DeepEqual(res.StructuredContent, fromText) {
		t.Fatalf("structured %v, text %s (%v)", res.StructuredContent, text(res), err)
	}
	if fromText["key"] != "diet" || fromText["content"] != "Is vegetarian" {
		t.Errorf("saved %v", fromText)
	}
	if res = call(t, s, "memory_append", map[string]any{"key": "diet", "content": "and avoids eggs"}); res.IsError {
		t.Fatalf("append failed: %s", text(res))
	}
	res = call(t, s, "memory_list", nil)
	var list httpapi.MemoryList
	if err := json.Unmarshal([]byte(text(res)), &list); err != nil || len(list.Items) != 1 || list.Items[0].Content != "Is vegetarian\nand avoids eggs" {
		t.Errorf("list %s (%v)", text(res), err)
	}
	if res = call(t, s, "memory_delete", map[string]any{"key": "diet"}); res.IsError || !strings.Contains(text(res), `"deleted":true`) {
		t.Errorf("delete: %s", text(res))
	}
}

// A pinned connection acts for its user only: a call naming another is refused in
// words the model can act on, and writes nothing; an unpinned one names the user
// on every call.
func TestCallTool_aPinnedConnectionActsForItsUserOnly(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	alice, unpinned := connect(t, srv, "alice"), connect(t, srv, "")
	res := call(t, alice, "memory_save", map[string]any{"user_id": "bob", "key": "city", "type": "fact", "content": "Lives in Wuhan"})
	if !res.IsError || !strings.Contains(text(res), "argument `user_id` names another user: this connection acts for user alice only") ||
		!strings.Contains(text(res), "leave user_id out; you sent `bob`") {
		t.Errorf("a pinned call naming bob: error %v, %q", res.IsError, text(res))
	}
	if res := call(t, alice, "memory_list", map[string]any{"user_id": "bob"}); !res.IsError {
		t.Errorf("a pinned read of bob's memories: %s", text(res))
	}
	if res := call(t, alice, "memory_save", map[string]any{"user_id": "alice", "key": "diet", "type": "fact", "content": "Is vegetarian"}); res.IsError {
		t.Errorf("naming the pinned user itself: %s", text(res))
	}
	if res := call(t, unpinned, "memory_save", map[string]any{"user_id": "carol", "key": "tea", "type": "fact", "content": "Drinks oolong"}); res.IsError {
		t.Errorf("an unpinned call naming carol: %s", text(res))
	}
	for user, want := range map[string]int{"alice": 1, "bob": 0, "carol": 1} {
		var list httpapi.MemoryList
		_ = json.Unmarshal([]byte(text(call(t, unpinned, "memory_list", map[string]any{"user_id": user}))), &list)
		if len(list.Items) != want {
			t.Errorf("%s has %d memories, want %d", user, len(list.Items), want)
		}
	}
}

func TestCallTool_errorsAreToolResultsTheModelCanActOn(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	withUser, noUser := connect(t, srv, "alice"), connect(t, srv, "")
	cases := []struct {
		name      string
		session   *mcp.ClientSession
		tool      string
		arguments any
		want      string
	}{
		{"a type that is not one", withUser, "memory_save", map[string]any{"key": "k", "type": "profile", "content": "x"},
			"argument `type` must be one of preference, fact, goal, project, constraint; you sent `profile`"},
		{"NUL in a value", withUser, "memory_save", map[string]any{"key": "k", "type": "fact", "content": "a\x00b"},
			"argument `content` must not contain NUL (U+0000) characters"},
		{"no user anywhere", noUser, "memory_list", nil, "argument `user_id` is required"},
		{"a user_id that is not text", withUser, "memory_list", map[string]any{"user_id": 7}, "argument `user_id` must be a string"},
		{"appending to nothing", withUser, "memory_append", map[string]any{"key": "nothing", "content": "x"},
			`memory "nothing" not found; memory_append only adds to an existing memory: create it with memory_save`},
	}
	for _, c := range cases {
		res := call(t, c.session, c.tool, c.arguments)
		if !res.IsError || !strings.Contains(text(res), c.want) {
			t.Errorf("%s: error %v, %q; want %q", c.name, res.IsError, text(res), c.want)
		}
	}
	var list httpapi.MemoryList
	_ = json.Unmarshal([]byte(text(call(t, withUser, "memory_list", nil))), &list)
	if len(list.Items) != 0 {
		t.Errorf("refused calls stored %+v", list.Items)
	}
	if _, err := withUser.CallTool(context.Background(), &mcp.CallToolParams{Name: "memory_forget"}); err == nil {
		t.Error("an unknown tool is a protocol error")
	}
}

// A pinned connection lists its user's resources and reads no other user's; an
// unpinned one gets the templates and reads any user's.
func TestResources_aUsersMemories(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	alice, unpinned := connect(t, srv, "alice"), connect(t, srv, "")
	call(t, alice, "memory_save", map[string]any{"key": "diet", "type": "fact", "content": "Is vegetarian"})
	call(t, unpinned, "memory_save", map[string]any{"user_id": "bob", "key": "city", "type": "fact", "content": "Lives in Wuhan"})

	templates, err := alice.ListResourceTemplates(context.Background(), nil)
	if err != nil || len(templates.ResourceTemplates) != 0 {
		t.Errorf("a pinned connection's templates %+v, %v", templates, err)
	}
	resources, err := alice.ListResources(context.Background(), nil)
	if err != nil || len(resources.Resources) != 1 || resources.Resources[0].URI != "engram://users/alice/memories" {
		t.Fatalf("a pinned connection's resources %+v, %v", resources, err)
	}
	read, err := alice.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: resources.Resources[0].URI})
	if err != nil || len(read.Contents) != 1 || read.Contents[0].MIMEType != "application/json" {
		t.Fatalf("read %+v, %v", read, err)
	}
	var list httpapi.MemoryList
	if err := json.Unmarshal([]byte(read.Contents[0].Text), &list); err != nil || len(list.Items) != 1 || list.Items[0].Key != "diet" {
		t.Errorf("resource %s (%v)", read.Contents[0].Text, err)
	}
	if read, err := alice.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "engram://users/bob/memories"}); err == nil ||
		!strings.Contains(err.Error(), "not found") {
		t.Errorf("alice's connection read bob's memories: %+v, %v", read, err)
	}

	templates, err = unpinned.ListResourceTemplates(context.Background(), nil)
	if err != nil || len(templates.ResourceTemplates) != 1 || templates.ResourceTemplates[0].URITemplate != mcpserver.MemoriesURITemplate {
		t.Fatalf("templates %+v, %v", templates, err)
	}
	read, err = unpinned.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "engram://users/bob/memories"})
	if err != nil || !strings.Contains(read.Contents[0].Text, `"key":"city"`) {
		t.Errorf("bob's memories: %+v, %v", read, err)
	}
	if _, err := unpinned.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "engram://users/%20/memories"}); err == nil || !strings.Contains(err.Error(), "only spaces") {
		t.Errorf("a user of spaces: %v", err)
	}
}

// Over HTTP each request acts for the tenant and user its own request names.
func TestHandler_tenantFromEachRequestUserFromTheHeader(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	h := srv.Handler(func(r *http.Request) (string, string) {
		return r.Header.Get("X-Test-Tenant"), r.Header.Get("X-Engram-User")
	}, 1<<20)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	session := func(tenant, user string) *mcp.ClientSession {
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		s, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL,
			HTTPClient: headers.Client(map[string]string{"X-Test-Tenant": tenant, "X-Engram-User": user})}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	acme, globex := session("acme", "alice"), session("globex", "alice")
	if res := call(t, acme, "memory_save", map[string]any{"key": "city", "type": "fact", "content": "Wuhan"}); res.IsError {
		t.Fatal(text(res))
	}
	for s, want := range map[*mcp.ClientSession]int{acme: 1, globex: 0} {
		var list httpapi.MemoryList
		_ = json.Unmarshal([]byte(text(call(t, s, "memory_list", nil))), &list)
		if len(list.Items) != want {
			t.Errorf("%d memories, want %d", len(list.Items), want)
		}
	}
}

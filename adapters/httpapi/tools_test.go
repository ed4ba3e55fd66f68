package httpapi_test

import (
	"context"
	"encoding/json"
	"engram/bootstrap"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2/humatest"

	"engram/adapters/httpapi"
	lexicalsearch "engram/adapters/lexical"
	"engram/adapters/sqlstore"
	"engram/adapters/textanalysis"
	"engram/adapters/ulids"
	"engram/app/auth"
	"engram/app/contextbuild"
	"engram/app/memories"
	"engram/app/retrieval"
	"engram/app/tools"
	"engram/domain/memory"
	"engram/domain/promptctx"
	"engram/test/fakeclock"
	"engram/test/teststore"
)

// newToolsHarness serves the memory, search and tool operations over the SQLite
// stores, with API keys for acme and globex.
func newToolsHarness(t *testing.T) (humatest.TestAPI, *httpapi.Toolbox) {
	t.Helper()
	clk := fakeclock.New(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	ids := &seqIDs{}
	stores := teststore.New(t)
	authn := auth.New(auth.Options{Configured: map[string]string{acmeKey: "acme", globexKey: "globex"}}, stores.APIKeys, clk, ids)
	api := httpapi.New(http.NewServeMux(), httpapi.Options{MaxBodyBytes: 1 << 20}, authn)
	tb, mem, search, inject := newToolbox(t, stores, clk, ids)
	httpapi.RegisterMemories(api, mem)
	httpapi.RegisterSearch(api, search)
	httpapi.RegisterContext(api, inject)
	httpapi.RegisterTools(api, tb)
	return humatest.Wrap(t, api.Root), tb
}

// newContextService is the context call over the harness's search, without
// sessions or profiles, its traces in traces.
func newContextService(traces *sqlstore.TraceStore, clk *fakeclock.Clock, search *retrieval.Service) *contextbuild.Service {
	return contextbuild.New(contextbuild.Deps{Retriever: bootstrap.ContextRetriever{Search: search}, Analyzer: textanalysis.New(textanalysis.Options{}),
		Traces: traceStoreWriter{traces}, Reader: traces, Clock: clk, IDs: ulids.New()}, contextbuild.Options{MinScore: 0.12})
}

// traceStoreWriter writes each trace at once.
type traceStoreWriter struct{ store *sqlstore.TraceStore }

func (w traceStoreWriter) Record(ctx context.Context, t promptctx.Trace) error {
	return w.store.SaveTraces(ctx, []promptctx.Trace{t})
}

func newToolbox(t testing.TB, stores *teststore.Stores, clk *fakeclock.Clock, ids *seqIDs) (*httpapi.Toolbox, *memories.Service, *retrieval.Service, *contextbuild.Service) {
	t.Helper()
	an := textanalysis.New(textanalysis.Options{})
	store, lexical := stores.IndexLexically(an), stores.Lexical
	mem := memories.New(store, clk, ids, memory.Policy{DefaultTTLDays: 180})
	search := retrieval.New(retrieval.Deps{Analyzer: an, Lexical: lexicalsearch.New(lexical, lexicalsearch.Options{}), Memories: store, Clock: clk}, retrieval.Options{})
	inject := newContextService(stores.Traces, clk, search)
	tb, err := httpapi.NewToolbox(httpapi.MemorySaveTool(mem), httpapi.MemoryAppendTool(mem), httpapi.MemoryDeleteTool(mem),
		httpapi.MemoryListTool(mem), httpapi.MemorySearchTool(search), httpapi.MemoryContextTool(inject))
	if err != nil {
		t.Fatal(err)
	}
	return tb, mem, search, inject
}

const acme = "Authorization: Bearer " + acmeKey

var toolNames = []string{"memory_append", "memory_context", "memory_delete", "memory_list", "memory_save", "memory_search"}

type openAITool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

func TestListTools_openAIAndAnthropicFormats(t *testing.T) {
	t.Parallel()
	api, _ := newToolsHarness(t)
	resp := api.Get("/v1/tools", acme)
	if resp.Code != http.StatusOK {
		t.Fatalf("GET /v1/tools = %d %s", resp.Code, resp.Body.String())
	}
	openai := decode[[]openAITool](t, resp)
	var names []string
	for _, tool := range openai {
		names = append(names, tool.Function.Name)
		var schema struct {
			Type       string         `json:"type"`
			Properties map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(tool.Function.Parameters, &schema); err != nil || tool.Type != "function" || schema.Type != "object" || len(schema.Properties) == 0 {
			t.Errorf("%s: type %q, parameters %s (%v)", tool.Function.Name, tool.Type, tool.Function.Parameters, err)
		}
		if _, ok := schema.Properties[tools.UserArgument]; ok {
			t.Errorf("%s offers user_id over HTTP, where the path names the user", tool.Function.Name)
		}
	}
	if !slices.Equal(names, toolNames) {
		t.Errorf("tools %v, want %v", names, toolNames)
	}

	resp = api.Get("/v1/tools?format=anthropic", acme)
	anthropic := decode[[]struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	}](t, resp)
	if resp.Code != http.StatusOK || len(anthropic) != len(openai) {
		t.Fatalf("anthropic format: %d %s", resp.Code, resp.Body.String())
	}
	for i, tool := range anthropic {
		o := openai[i].Function
		if tool.Name != o.Name || tool.Description != o.Description || string(tool.InputSchema) != string(o.Parameters) {
			t.Errorf("anthropic %s differs from openai %s", tool.Name, o.Name)
		}
	}
	if resp := api.Get("/v1/tools?format=gemini", acme); resp.Code != http.StatusUnprocessableEntity {
		t.Errorf("format=gemini: %d, want 422", resp.Code)
	}
	if resp := api.Get("/v1/tools"); resp.Code != http.StatusUnauthorized {
		t.Errorf("no key: %d, want 401", resp.Code)
	}
}

// The model is told seed 000's boundaries where it decides to save.
func TestListTools_memorySaveSaysWhatNeverToSave(t *testing.T) {
	t.Parallel()
	api, _ := newToolsHarness(t)
	for _, tool := range decode[[]openAITool](t, api.Get("/v1/tools", acme)) {
		if tool.Function.Name == "memory_save" && !strings.Contains(tool.Function.Description, tools.WhatToSave) {
			t.Errorf("memory_save's description lacks the boundaries: %s", tool.Function.Description)
		}
	}
}

// schemaKeywords are what validation reads; descriptions are written for the model
// and may differ.
var schemaKeywords = []string{"type", "enum", "format", "minLength", "maxLength", "minimum", "maximum", "maxItems", "minItems", "default", "items"}

func constraints(schema map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range schemaKeywords {
		if v, ok := schema[k]; ok {
			if items, isMap := v.(map[string]any); isMap && k == "items" {
				v = constraints(items)
			}
			out[k] = v
		}
	}
	return out
}

// The tools cannot drift from the HTTP operations: every argument of a tool has
// the same schema as the body field or path/query parameter of the operation with
// the tool's name, and every field that operation requires is a required argument.
func TestToolSchemas_areTheHTTPOperationsSchemas(t *testing.T) {
	t.Parallel()
	api, _ := newToolsHarness(t)
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(api.Get("/openapi.json").Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	type operation struct {
		OperationID string `json:"operationId"`
		Parameters  []struct {
			Name     string         `json:"name"`
			In       string         `json:"in"`
			Required bool           `json:"required"`
			Schema   map[string]any `json:"schema"`
		} `json:"parameters"`
		RequestBody struct {
			Content map[string]struct {
				Schema map[string]any `json:"schema"`
			} `json:"content"`
		} `json:"requestBody"`
	}
	ops := map[string]operation{}
	for _, methods := range doc.Paths {
		for _, raw := range methods {
			var op operation
			if json.Unmarshal(raw, &op) == nil && op.OperationID != "" {
				ops[op.OperationID] = op
			}
		}
	}
	for _, tool := range decode[[]openAITool](t, api.Get("/v1/tools", acme)) {
		name := tool.Function.Name
		op, ok := ops[name]
		if !ok {
			t.Errorf("no operation %s", name)
			continue
		}
		var params struct {
			Properties map[string]map[string]any `json:"properties"`
			Required   []string                  `json:"required"`
		}
		if err := json.Unmarshal(tool.Function.Parameters, &params); err != nil {
			t.Fatal(err)
		}
		httpFields := map[string]map[string]any{}
		var httpRequired []string
		for _, p := range op.Parameters {
			if p.Name != "user" {
				httpFields[p.Name] = p.Schema
				if p.Required {
					httpRequired = append(httpRequired, p.Name)
				}
			}
		}
		if body, ok := op.RequestBody.Content["application/json"]; ok {
			ref, _ := body.Schema["$ref"].(string)
			schema := doc.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")]
			props, _ := schema["properties"].(map[string]any)
			for field, s := range props {
				httpFields[field], _ = s.(map[string]any)
			}
			required, _ := schema["required"].([]any)
			for _, r := range required {
				httpRequired = append(httpRequired, r.(string))
			}
		}
		for arg, schema := range params.Properties {
			httpSchema, ok := httpFields[arg]
			if !ok {
				t.Errorf("%s: argument %s is not a field of the operation", name, arg)
				continue
			}
			if got, want := constraints(schema), constraints(httpSchema); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: argument %s is %v, the operation's field %v", name, arg, got, want)
			}
		}
		for _, r := range httpRequired {
			if !slices.Contains(params.Required, r) {
				t.Errorf("%s: the operation requires %s, the tool does not", name, r)
			}
		}
	}
}

func TestCallTool_eachToolRunsItsUseCase(t *testing.T) {
	t.Parallel()
	api, _ := newToolsHarness(t)
	call := func(name string, arguments any) map[string]any {
		t.Helper()
		resp := api.Post("/v1/users/alice/tools/"+name, acme, map[string]any{"arguments": arguments})
		if resp.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", name, resp.Code, resp.Body.String())
		}
		return decode[map[string]any](t, resp)
	}
	saved := call("memory_save", map[string]any{"key": "Diet", "type": "fact", "content": "Is vegetarian", "importance": 4})
	if saved["key"] != "diet" || saved["content"] != "Is vegetarian" || saved["importance"] != 4.0 || saved["source"].(map[string]any)["channel"] != "tool" {
		t.Errorf("memory_save returned %v", saved)
	}
	// OpenAI tool calls carry their arguments as a JSON string.
	appended := call("memory_append", `{"key": "diet", "content": "and avoids eggs"}`)
	if appended["content"] != "Is vegetarian\nand avoids eggs" || appended["version"] != 2.0 {
		t.Errorf("memory_append returned %v", appended)
	}
	if got := decode[httpapi.Memory](t, api.Get("/v1/users/alice/memories/diet", acme)); got.Content != "Is vegetarian\nand avoids eggs" {
		t.Errorf("the REST API sees %+v", got)
	}
	// A call without arguments needs no body at all.
	resp := api.Post("/v1/users/alice/tools/memory_list", acme)
	if resp.Code != http.StatusOK {
		t.Fatalf("memory_list without a body: %d %s", resp.Code, resp.Body.String())
	}
	listed := decode[map[string]any](t, resp)
	if items := listed["items"].([]any); len(items) != 1 || items[0].(map[string]any)["key"] != "diet" {
		t.Errorf("memory_list returned %v", listed)
	}
	found := call("memory_search", map[string]any{"query": "is alice vegetarian", "mode": "lexical"})
	if items := found["items"].([]any); len(items) != 1 || items[0].(map[string]any)["memory"].(map[string]any)["key"] != "diet" {
		t.Errorf("memory_search returned %v", found)
	}
	injected := call("memory_context", map[string]any{"query": "is alice vegetarian", "budget_chars": 500})
	if prompt, _ := injected["prompt"].(string); !strings.Contains(prompt, "> Is vegetarian") || injected["trace_id"] == "" {
		t.Errorf("memory_context returned %v", injected)
	}
	if trace := api.Get("/v1/traces/"+injected["trace_id"].(string), acme); trace.Code != http.StatusOK || !strings.Contains(trace.Body.String(), `"id":"diet"`) {
		t.Errorf("its trace: %d %s", trace.Code, trace.Body.String())
	}
	if deleted := call("memory_delete", map[string]any{"key": "DIET"}); deleted["key"] != "diet" || deleted["deleted"] != true {
		t.Errorf("memory_delete returned %v", deleted)
	}
	if resp := api.Get("/v1/users/alice/memories/diet", acme); resp.Code != http.StatusNotFound {
		t.Errorf("after memory_delete the REST API answers %d", resp.Code)
	}
}

func TestCallTool_badArgumentsAre422WordedForTheModel(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, tool string
		arguments  any
		detail     []string // every line the detail must have
		location   string
	}{
		{"a type that is not one", "memory_save", map[string]any{"key": "diet", "type": "profile", "content": "x"},
			[]string{"argument `type` must be one of preference, fact, goal, project, constraint; you sent `profile`"}, "body.arguments.type"},
		{"a missing argument", "memory_save", map[string]any{"key": "diet", "type": "fact"},
			[]string{"argument `content` is required: a string of 1 to 1000 characters"}, "body.arguments.content"},
		{"an unknown argument", "memory_delete", map[string]any{"key": "diet", "user": "bob"},
			[]string{"argument `user` is unknown: memory_delete takes key"}, "body.arguments.user"},
		{"user_id naming another user than the path", "memory_list", map[string]any{"user_id": "bob"},
			[]string{"argument `user_id` names another user: this connection acts for user alice only"}, "body.arguments.user_id"},
		{"several at once, in the tool's order", "memory_save", `{"importance": 9, "key": "", "type": "fact", "content": "x"}`,
			[]string{"argument `key` must be a string of 1 to 512 characters; you sent ``", "argument `importance` must be a whole number from 1 to 5; you sent `9`"}, "body.arguments.importance"},
		{"a fraction for a whole number", "memory_search", map[string]any{"query": "tea", "limit": 2.5},
			[]string{"argument `limit` must be a whole number from 1 to 100; you sent `2.5`"}, "body.arguments.limit"},
		{"text over the limit", "memory_append", map[string]any{"key": "diet", "content": strings.Repeat("é", 1001)},
			[]string{"argument `content` must be a string of 1 to 1000 characters; you sent a text of 1001 characters"}, "body.arguments.content"},
		{"a list where text goes", "memory_save", map[string]any{"key": []string{"a"}, "type": "fact", "content": "x"},
			[]string{"argument `key` must be a string of 1 to 512 characters; you sent `[\"a\"]`"}, "body.arguments.key"},
		{"NUL inside string arguments", "memory_save", `{"key": "diet", "type": "fact", "content": "a\u0000b"}`,
			[]string{"argument `content` must not contain NUL (U+0000) characters"}, "body.arguments.content"},
		{"a lone surrogate inside string arguments", "memory_save", `{"key": "diet", "type": "fact", "content": "x\udc00"}`,
			[]string{"argument `content` must be valid UTF-8"}, "body.arguments.content"},
		{"an argument sent twice", "memory_save", `{"key": "diet", "type": "fact", "content": "a", "content": "b"}`,
			[]string{"argument `content` appears more than once"}, "body.arguments.content"},
		{"an argument in the wrong case", "memory_save", `{"KEY": "diet", "type": "fact", "content": "a"}`,
			[]string{"argument `KEY` is not a field: field names are case-sensitive, send key"}, "body.arguments.KEY"},
		{"a number no float holds", "memory_save", `{"key": "diet", "type": "fact", "content": "a", "importance": 1e309}`,
			[]string{"argument `importance` is out of range"}, "body.arguments.importance"},
		{"arguments that are not an object", "memory_list", `[1, 2]`,
			[]string{"the arguments must be a JSON object of named arguments"}, "body.arguments"},
		{"a string that is not JSON", "memory_list", `{"q": `,
			[]string{"the arguments are not valid JSON"}, "body.arguments"},
		{"a key the domain refuses", "memory_save", map[string]any{"key": "!!!", "type": "fact", "content": "x"},
			[]string{"argument `key` "}, "body.arguments.key"},
		{"a noise key", "memory_save", map[string]any{"key": "tool-list", "type": "fact", "content": "x"},
			[]string{"argument `key` ", "tool-"}, "body.arguments.key"},
		{"a cursor this server never issued", "memory_list", map[string]any{"cursor": "nope"},
			[]string{"argument `cursor` is not a cursor this server issued"}, "body.arguments.cursor"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			api, _ := newToolsHarness(t)
			resp := api.Post("/v1/users/alice/tools/"+c.tool, acme, map[string]any{"arguments": c.arguments})
			p := expectProblem(t, resp, http.StatusUnprocessableEntity, c.location)
			for _, line := range c.detail {
				if !strings.Contains(p.Detail, line) {
					t.Errorf("detail %q lacks %q", p.Detail, line)
				}
			}
			// Nothing was written.
			if got := decode[httpapi.MemoryList](t, api.Get("/v1/users/alice/memories?include_inactive=true", acme)); len(got.Items) != 0 {
				t.Errorf("a refused call stored %+v", got.Items)
			}
		})
	}
}

func TestCallTool_nullArgumentsCountAsAbsent(t *testing.T) {
	t.Parallel()
	api, _ := newToolsHarness(t)
	resp := api.Post("/v1/users/alice/tools/memory_save", acme, map[string]any{"arguments": map[string]any{
		"key": "diet", "type": "fact", "content": "Vegetarian", "importance": nil, "ttl_days": nil}})
	if m := decode[httpapi.Memory](t, resp); resp.Code != http.StatusOK || m.Importance != 3 {
		t.Errorf("%d %+v, want the default importance", resp.Code, m)
	}
}

func TestCallTool_404sSayWhatToDo(t *testing.T) {
	t.Parallel()
	api, _ := newToolsHarness(t)
	resp := api.Post("/v1/users/alice/tools/memory_forget", acme, map[string]any{})
	if p := expectProblem(t, resp, http.StatusNotFound, ""); !strings.Contains(p.Detail, "the tools are "+strings.Join(toolNames, ", ")) {
		t.Errorf("unknown tool: %q", p.Detail)
	}
	resp = api.Post("/v1/users/alice/tools/memory_append", acme, map[string]any{"arguments": map[string]any{"key": "diet", "content": "x"}})
	if p := expectProblem(t, resp, http.StatusNotFound, ""); !strings.Contains(p.Detail, `memory "diet" not found`) || !strings.Contains(p.Detail, "memory_save") {
		t.Errorf("append to nothing: %q", p.Detail)
	}
}

func TestCallTool_tenantsAndUsersAreApart(t *testing.T) {
	t.Parallel()
	api, _ := newToolsHarness(t)
	save := map[string]any{"arguments": map[string]any{"key": "city", "type": "fact", "content": "Lives in Wuhan"}}
	if resp := api.Post("/v1/users/alice/tools/memory_save", save); resp.Code != http.StatusUnauthorized {
		t.Errorf("no key: %d, want 401", resp.Code)
	}
	if resp := api.Post("/v1/users/alice/tools/memory_save", acme, save); resp.Code != http.StatusOK {
		t.Fatalf("save: %d", resp.Code)
	}
	for _, who := range []struct{ path, auth string }{
		{"/v1/users/alice/tools/memory_list", "Authorization: Bearer " + globexKey},
		{"/v1/users/bob/tools/memory_list", acme},
	} {
		resp := api.Post(who.path, who.auth, map[string]any{})
		if got := decode[httpapi.MemoryList](t, resp); resp.Code != http.StatusOK || len(got.Items) != 0 {
			t.Errorf("%s with %s sees %d %+v", who.path, who.auth, resp.Code, got)
		}
	}
	if resp := api.Post("/v1/users/%20/tools/memory_list", acme, map[string]any{}); resp.Code != http.StatusUnprocessableEntity {
		t.Errorf("a user of spaces: %d, want 422", resp.Code)
	}
}

func TestNewToolbox_refusesDuplicatesAndUnknownArguments(t *testing.T) {
	t.Parallel()
	clk := fakeclock.New(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	mem := memories.New(teststore.New(t).Memories, clk, &seqIDs{}, memory.Policy{})
	if _, err := httpapi.NewToolbox(httpapi.MemorySaveTool(mem), httpapi.MemorySaveTool(mem)); err == nil || !strings.Contains(err.Error(), "memory_save") {
		t.Errorf("two memory_save tools: %v", err)
	}
}

func TestDefinitions_withUserAddsARequiredUserID(t *testing.T) {
	t.Parallel()
	_, tb := newToolsHarness(t)
	for _, d := range tb.Definitions(true) {
		var schema struct {
			Properties map[string]map[string]any `json:"properties"`
			Required   []string                  `json:"required"`
		}
		if err := json.Unmarshal(d.Parameters, &schema); err != nil {
			t.Fatal(err)
		}
		u := schema.Properties[tools.UserArgument]
		if u["type"] != "string" || u["maxLength"] != float64(memory.MaxUserIDLen) || !slices.Contains(schema.Required, tools.UserArgument) {
			t.Errorf("%s: user_id %v (required %v)", d.Name, u, schema.Required)
		}
	}
	for _, d := range tb.Definitions(false) {
		if d.ReadOnly != (d.Name == "memory_list" || d.Name == "memory_search" || d.Name == "memory_context") || d.Destructive != (d.Name == "memory_delete") {
			t.Errorf("%s: read-only %v, destructive %v", d.Name, d.ReadOnly, d.Destructive)
		}
	}
}

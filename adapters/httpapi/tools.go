package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"engram/app/tools"
	"engram/domain/memory"
	"engram/ports"
)

// Tool is one agent tool: its name, what the model is told, the Go type its
// arguments decode into, and the use case it runs. The arguments' JSON Schema is
// generated from that type with huma's registry; the types embed the request
// bodies of the HTTP operations (SaveMemoryRequest, SearchRequest…) and repeat the
// tags of their path and query parameters, so a tool and its operation validate
// alike (tools_test.go compares them with the OpenAPI document). Each tool lives
// in a file of its own (tool_*.go); the toolbox is the list bootstrap hands it.
type Tool struct {
	toolSpec
	arguments reflect.Type
	result    reflect.Type // what run returns, for the OpenAPI document
	run       func(ctx context.Context, sc memory.Scope, arguments any) (any, error)
}

// toolSpec is what each tool file declares besides its types and use case.
type toolSpec struct {
	name, description     string
	readOnly, destructive bool
	// docs replace the Go type's descriptions of some arguments: the HTTP docs are
	// written for developers, these for the model.
	docs map[string]string
	// notFound is added to a not-found error, to tell the model what to do instead.
	notFound string
}

// defineTool builds a Tool whose arguments decode into A and whose result is R.
func defineTool[A, R any](spec toolSpec, run func(ctx context.Context, sc memory.Scope, arguments *A) (R, error)) Tool {
	return Tool{
		toolSpec: spec, arguments: reflect.TypeFor[A](), result: reflect.TypeFor[R](),
		run: func(ctx context.Context, sc memory.Scope, arguments any) (any, error) {
			return run(ctx, sc, arguments.(*A))
		},
	}
}

// Toolbox is the agent tools: their definitions in the function-calling formats
// and a call by name that validates the arguments, words what is wrong with them
// for the model, and runs the use case. Every transport (POST …/tools/{name},
// MCP) calls through it, so all of them accept and refuse the same calls.
type Toolbox struct {
	byName   map[string]*boxedTool
	names    []string // sorted
	registry huma.Registry
}

type boxedTool struct {
	Tool
	schema        *huma.Schema
	argumentNames []string // in the order of the Go type's fields
	published     json.RawMessage
	withUser      json.RawMessage // published, plus user_id
}

// NewToolbox checks and prepares the tools: names must be unique, and every
// argument a tool describes must exist.
func NewToolbox(list ...Tool) (*Toolbox, error) {
	tb := &Toolbox{byName: map[string]*boxedTool{}, registry: huma.NewMapRegistry("#/components/schemas/", huma.DefaultSchemaNamer)}
	for _, t := range list {
		if _, dup := tb.byName[t.name]; dup {
			return nil, fmt.Errorf("tools: two tools are named %s", t.name)
		}
		b, err := tb.box(t)
		if err != nil {
			return nil, fmt.Errorf("tools: %s: %w", t.name, err)
		}
		tb.byName[t.name] = b
		tb.names = append(tb.names, t.name)
	}
	slices.Sort(tb.names)
	return tb, nil
}

func (tb *Toolbox) box(t Tool) (*boxedTool, error) {
	s := tb.registry.Schema(t.arguments, false, t.name+"Arguments")
	if s.Type != huma.TypeObject {
		return nil, fmt.Errorf("arguments must be a struct, got %s", t.arguments)
	}
	for name, doc := range t.docs {
		p, ok := s.Properties[name]
		if !ok {
			return nil, fmt.Errorf("describes argument %s, which its arguments do not have", name)
		}
		p.Description = doc
	}
	b := &boxedTool{Tool: t, schema: s, argumentNames: jsonFieldNames(t.arguments)}
	var err error
	if b.published, err = json.Marshal(s); err != nil {
		return nil, err
	}
	if b.withUser, err = withUserArgument(b.published); err != nil {
		return nil, err
	}
	return b, nil
}

// userArgumentSchema is user_id as MCP clients see it: UserPath's limits.
var userArgumentSchema = map[string]any{
	"type": "string", "minLength": 1, "maxLength": memory.MaxUserIDLen,
	"description": "The user whose memories these are. A connection pinned to its user (the X-Engram-User header, " +
		"`engram mcp --user`, or a key created for one user) has no such argument.",
}

func withUserArgument(schema json.RawMessage) (json.RawMessage, error) {
	var m map[string]any
	if err := json.Unmarshal(schema, &m); err != nil {
		return nil, err
	}
	props, _ := m["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	props[tools.UserArgument] = userArgumentSchema
	m["properties"] = props
	required, _ := m["required"].([]any)
	m["required"] = append([]any{tools.UserArgument}, required...)
	return json.Marshal(m)
}

// Definitions describes every tool, sorted by name. withUser adds the required
// user_id argument, for transports where the arguments name the user (an MCP
// connection not pinned to a user).
func (tb *Toolbox) Definitions(withUser bool) []tools.Definition {
	out := make([]tools.Definition, 0, len(tb.names))
	for _, name := range tb.names {
		b := tb.byName[name]
		params := b.published
		if withUser {
			params = b.withUser
		}
		out = append(out, tools.Definition{Name: name, Description: b.description, Parameters: params,
			ReadOnly: b.readOnly, Destructive: b.destructive})
	}
	return out
}

// Call runs one tool call. Argument errors are *invalid.Error worded for the model
// (tools.Explain); a tool that does not exist or an object the call names that
// does not exist is a ports.NotFoundError that says what to do instead.
func (tb *Toolbox) Call(ctx context.Context, c tools.Call) (any, error) {
	b := tb.byName[c.Name]
	if b == nil {
		return nil, fmt.Errorf("%w; the tools are %s", ports.NotFound("tool", c.Name), strings.Join(tb.names, ", "))
	}
	arguments, userID, err := tb.parseArguments(b, c)
	if err != nil {
		return nil, err
	}
	sc, err := c.Scope(userID)
	if err != nil {
		return nil, err
	}
	res, err := b.run(ctx, sc, arguments)
	var notFound *ports.NotFoundError
	switch {
	case err == nil:
		return res, nil
	case b.notFound != "" && errors.As(err, &notFound):
		return nil, fmt.Errorf("%w; %s", err, b.notFound)
	}
	return nil, err
}

// resultTypes lists the Go types the tools return, for the OpenAPI document.
func (tb *Toolbox) resultTypes() []reflect.Type {
	var out []reflect.Type
	for _, name := range tb.names {
		if t := tb.byName[name].result; !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// jsonFieldNames lists the JSON names of a struct's fields, those of embedded
// structs in place, as encoding/json and huma flatten them.
func jsonFieldNames(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct {
			names = append(names, jsonFieldNames(f.Type)...)
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names = append(names, name)
	}
	return names
}

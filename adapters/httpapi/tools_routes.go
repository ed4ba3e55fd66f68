package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"engram/app/tools"
)

// OpenAITool is one tool in OpenAI's function-calling format (chat completions'
// "tools").
type OpenAITool struct {
	Type     string         `json:"type" enum:"function"`
	Function OpenAIFunction `json:"function"`
}

// OpenAIFunction is the function an OpenAITool offers.
type OpenAIFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description" doc:"When to call the tool, and what it must never be given."`
	Parameters  json.RawMessage `json:"parameters" doc:"JSON Schema (an object) of the arguments."`
}

// AnthropicTool is one tool in Anthropic's format (the Messages API's "tools").
type AnthropicTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description" doc:"When to call the tool, and what it must never be given."`
	InputSchema json.RawMessage `json:"input_schema" doc:"JSON Schema (an object) of the arguments."`
}

type listToolsInput struct {
	Format string `query:"format" enum:"openai,anthropic" default:"openai" doc:"openai: [{type, function: {name, description, parameters}}]; anthropic: [{name, description, input_schema}]."`
}

type anyBody struct {
	Body any
}

// ToolCallRequest is the body of POST /v1/users/{user}/tools/{name}.
type ToolCallRequest struct {
	Arguments ToolArguments `json:"arguments,omitempty" doc:"The tool call's arguments as the model produced them: a JSON object, or the JSON string holding one that OpenAI tool calls carry. Absent: no arguments."`
}

// ToolArguments keeps the arguments as they were sent; the toolbox decodes them.
type ToolArguments json.RawMessage

// UnmarshalJSON keeps the raw JSON.
func (a *ToolArguments) UnmarshalJSON(b []byte) error {
	*a = append((*a)[:0], b...)
	return nil
}

// Schema is an object or a string.
func (ToolArguments) Schema(huma.Registry) *huma.Schema {
	object := &huma.Schema{Type: huma.TypeObject, Description: "The arguments as an object."}
	text := &huma.Schema{Type: huma.TypeString, Description: "The arguments as a JSON string holding an object."}
	object.PrecomputeMessages()
	text.PrecomputeMessages()
	return &huma.Schema{OneOf: []*huma.Schema{object, text}}
}

type toolCallInput struct {
	UserPath
	Name string           `path:"name" minLength:"1" maxLength:"64" doc:"The tool, by the name GET /v1/tools gives it (memory_save, memory_append, memory_delete, memory_list, memory_search)."`
	Body *ToolCallRequest // optional: no body is no arguments
}

// RegisterTools adds the agent tools over HTTP.
func RegisterTools(api *API, tb *Toolbox) {
	log := api.opts.Logger
	registry := api.Root.OpenAPI().Components.Schemas
	tags := []string{"tools"}
	describeTag(api.Root, "tools", "Agent tools (memory_save, memory_append, memory_delete, memory_list, memory_search) for "+
		"function calling: hand GET /v1/tools to the model, post its tool calls to POST /v1/users/{user}/tools/{name}. "+
		"The same tools are served over MCP (streamable HTTP, JSON-RPC) at "+MCPPath+", outside this document: "+
		"authenticated with the same bearer key. A connection that names its user (the "+UserHeader+" header, or a key "+
		"created for one user) is pinned to it: no user_id argument, and no other user's memories; otherwise every call names "+
		"its user with user_id.")

	// The toolbox does not change once built: both formats are made once.
	defs := tb.Definitions(false)
	openAITools := make([]OpenAITool, 0, len(defs))
	anthropicTools := make([]AnthropicTool, 0, len(defs))
	for _, d := range defs {
		openAITools = append(openAITools, OpenAITool{Type: "function", Function: OpenAIFunction{Name: d.Name, Description: d.Description, Parameters: d.Parameters}})
		anthropicTools = append(anthropicTools, AnthropicTool{Name: d.Name, Description: d.Description, InputSchema: d.Parameters})
	}
	register(api, huma.Operation{
		OperationID: "tools_list", Method: http.MethodGet, Path: "/tools",
		Metadata: map[string]any{reachMetadata: reachNoUserData},
		Summary:  "Function-calling definitions of the agent tools", Tags: tags,
		Description: "Generated from the same Go types as the memory operations, so the schemas are what those operations accept. " +
			"Their descriptions tell the model when to save and what never to save.",
		Responses: map[string]*huma.Response{"200": jsonResponse("The tools, sorted by name, in the format asked for.",
			&huma.Schema{OneOf: []*huma.Schema{
				{Type: huma.TypeArray, Description: "format=openai", Items: registry.Schema(reflect.TypeFor[OpenAITool](), true, "")},
				{Type: huma.TypeArray, Description: "format=anthropic", Items: registry.Schema(reflect.TypeFor[AnthropicTool](), true, "")},
			}})},
	}, func(ctx context.Context, in *listToolsInput) (*anyBody, error) {
		if in.Format == "anthropic" {
			return &anyBody{Body: anthropicTools}, nil
		}
		return &anyBody{Body: openAITools}, nil
	})

	results := make([]*huma.Schema, 0)
	for _, t := range tb.resultTypes() {
		results = append(results, registry.Schema(t, true, ""))
	}
	register(api, huma.Operation{
		OperationID: "tools_call", Method: http.MethodPost, Path: "/users/{user}/tools/{name}",
		Summary: "Run a tool call of the model", Tags: tags,
		Description: "Pass the model's tool call straight through: the result is the tool's (memory_save and memory_append: the memory; " +
			"memory_delete: {key, deleted}; memory_list: {items, next_cursor}; memory_search: the search result). " +
			"Arguments that do not fit the tool's schema are a 422 whose detail names each argument and is worded for the model " +
			"to correct itself; hand it back as the tool's result. An unknown tool is a 404 listing the tools. A tool that " +
			"writes (memory_save, memory_append, memory_delete) is 409 while the user is being erased.",
		Responses: map[string]*huma.Response{"200": jsonResponse("The tool's result.", &huma.Schema{OneOf: results})},
		Errors:    []int{http.StatusNotFound, refusedWhileErasing, http.StatusUnprocessableEntity},
	}, func(ctx context.Context, in *toolCallInput) (*anyBody, error) {
		if _, err := in.scope(ctx, log); err != nil {
			return nil, err
		}
		var arguments []byte
		if in.Body != nil {
			arguments = in.Body.Arguments
		}
		res, err := tb.Call(ctx, tools.Call{Tenant: tenantFrom(ctx), Name: in.Name, Arguments: arguments, User: in.User})
		if err != nil {
			return nil, problem(ctx, log, &toolCallError{err: err}, "body")
		}
		return &anyBody{Body: res}, nil
	})
}

func jsonResponse(description string, schema *huma.Schema) *huma.Response {
	return &huma.Response{Description: description, Content: map[string]*huma.MediaType{"application/json": {Schema: schema}}}
}

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"

	"engram/test/fakellm"
)

// A function-calling agent needs no code of its own for engram's tools: it hands
// GET /v1/tools to its model as they are (here through langchaingo's OpenAI
// client), and posts each tool call the model makes, arguments string and all, to
// POST /v1/users/{user}/tools/{name}; the result goes back to the model.
func TestFunctionCalling_anAgentLoopSavesWhatTheModelAsks(t *testing.T) {
	srv := Start(t, "ENGRAM_DATA_DIR="+t.TempDir())
	var tools []llms.Tool
	if code := srv.Do(http.MethodGet, "/v1/tools", nil, &tools); code != http.StatusOK || len(tools) != 6 {
		t.Fatalf("GET /v1/tools = %d, %d tools", code, len(tools))
	}

	model := fakellm.New(t)
	model.EnqueueChat(
		fakellm.CallTools(fakellm.ToolCall{Name: "memory_save",
			Arguments: `{"key": "diet", "type": "fact", "content": "Is vegetarian", "importance": 4}`}),
		fakellm.CallTools(fakellm.ToolCall{Name: "memory_save", Arguments: `{"key": "nickname", "type": "profile", "content": "Ali"}`}),
		fakellm.Answer("Noted: you are vegetarian."),
	)
	llm, err := openai.New(openai.WithBaseURL(model.OpenAIBaseURL()), openai.WithToken("sk-test"), openai.WithModel("gpt-test"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conversation := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "I'm vegetarian, please remember that. Call me Ali.")}
	for turn := 0; turn < 5; turn++ {
		resp, err := llm.GenerateContent(ctx, conversation, llms.WithTools(tools))
		if err != nil {
			t.Fatal(err)
		}
		choice := resp.Choices[0]
		if len(choice.ToolCalls) == 0 {
			if choice.Content != "Noted: you are vegetarian." {
				t.Errorf("final answer %q", choice.Content)
			}
			break
		}
		assistant := llms.MessageContent{Role: llms.ChatMessageTypeAI}
		for _, call := range choice.ToolCalls {
			assistant.Parts = append(assistant.Parts, call)
		}
		conversation = append(conversation, assistant)
		for _, call := range choice.ToolCalls {
			result := postToolCall(t, srv, "alice", call.FunctionCall.Name, call.FunctionCall.Arguments)
			conversation = append(conversation, llms.MessageContent{Role: llms.ChatMessageTypeTool,
				Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: call.ID, Name: call.FunctionCall.Name, Content: result}}})
		}
	}

	requests := model.ChatRequests()
	if len(requests) != 3 || len(requests[0].Tools) != 6 {
		t.Fatalf("%d chat requests; the first offered %v", len(requests), requests[0].Tools)
	}
	// The model was told what the tools said: the memory, then why the second call was refused.
	if got := requests[1].Text("tool"); !strings.Contains(got, `"key":"diet"`) {
		t.Errorf("the model got %q after memory_save", got)
	}
	if got := requests[2].Text("tool"); !strings.Contains(got, "argument `type` must be one of preference, fact, goal, project, constraint; you sent `profile`") {
		t.Errorf("the model got %q after the refused call", got)
	}
	var diet struct {
		Content    string `json:"content"`
		Importance int    `json:"importance"`
	}
	if code := srv.Do(http.MethodGet, "/v1/users/alice/memories/diet", nil, &diet); code != http.StatusOK || diet.Content != "Is vegetarian" || diet.Importance != 4 {
		t.Errorf("the memory: %d %+v", code, diet)
	}
	if code := srv.Do(http.MethodGet, "/v1/users/alice/memories/nickname", nil, nil); code != http.StatusNotFound {
		t.Errorf("the refused nickname was stored: %d", code)
	}
	srv.Stop()
}

// postToolCall is the whole of an agent's glue: the tool call's name in the path,
// its arguments string as is; a 4xx's detail is the result the model reads.
func postToolCall(t *testing.T, srv *Server, user, name, arguments string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"arguments": arguments})
	resp, err := http.Post(srv.Base+"/v1/users/"+user+"/tools/"+name, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK {
		return string(b)
	}
	var problem struct {
		Detail string `json:"detail"`
	}
	if json.Unmarshal(b, &problem) != nil || resp.StatusCode >= 500 {
		t.Fatalf("%s: %d %s", name, resp.StatusCode, b)
	}
	return problem.Detail
}

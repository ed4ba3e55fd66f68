package fakellm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"engram/test/fakellm"
	"engram/test/wait"
)

func post(t *testing.T, ctx context.Context, url, body string) (*http.Response, []byte, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

const chatBody = `{"model":"m","messages":[{"role":"system","content":"answer in JSON"},{"role":"user","content":"hi"}],"temperature":0,"response_format":{"type":"json_object"}}`

func TestChat_queueIsConsumedInOrderAndRequestsAreRecorded(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t)
	s.EnqueueChat(fakellm.RateLimited("2"), fakellm.Answer(`{"ok":true}`).WithUsage(11, 7))

	resp, body, err := post(t, context.Background(), s.OpenAIBaseURL()+"/chat/completions", chatBody)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "2" {
		t.Fatalf("first answer: status %d, Retry-After %q, body %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}

	resp, body, err = post(t, context.Background(), s.OpenAIBaseURL()+"/chat/completions", chatBody)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(body, &got); err != nil || resp.StatusCode != 200 {
		t.Fatalf("second answer: status %d, %v, %s", resp.StatusCode, err, body)
	}
	if got.Choices[0].Message.Content != `{"ok":true}` || got.Usage.PromptTokens != 11 || got.Usage.CompletionTokens != 7 {
		t.Fatalf("second answer = %+v", got)
	}

	reqs := s.ChatRequests()
	if len(reqs) != 2 {
		t.Fatalf("recorded %d requests, want 2", len(reqs))
	}
	r := reqs[1]
	if r.Model != "m" || r.ResponseFormat != "json_object" || r.Temperature == nil || *r.Temperature != 0 ||
		r.Text("user") != "hi" || r.Messages[0].Role != "system" || r.Seq != 2 {
		t.Fatalf("recorded request = %+v", r)
	}
}

func TestChat_jsonModeWithoutTheWordJSONIsRefusedLikeOpenAI(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t)
	resp, body, err := post(t, context.Background(), s.OpenAIBaseURL()+"/chat/completions",
		`{"model":"m","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_object"}}`)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "json") {
		t.Fatalf("status %d body %s, want 400 naming json", resp.StatusCode, body)
	}
}

func TestChat_hangReturnsWhenTheClientGivesUp(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t)
	s.EnqueueChat(fakellm.Hang())
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, _, err := post(t, ctx, s.OpenAIBaseURL()+"/chat/completions", chatBody)
	if err == nil {
		t.Fatal("hung request returned without error")
	}
	if n := len(s.ChatRequests()); n != 1 {
		t.Fatalf("recorded %d requests, want the hung one", n)
	}
}

func TestChat_hangIsReleasedByClose(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t)
	s.EnqueueChat(fakellm.Hang())
	done := make(chan error, 1)
	go func() {
		_, _, err := post(t, context.Background(), s.OpenAIBaseURL()+"/chat/completions", chatBody)
		done <- err
	}()
	wait.Until(t, 5*time.Second, "the request to reach the server", func() bool { return len(s.ChatRequests()) > 0 })
	s.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not release the hung request")
	}
}

func TestChat_ollamaProtocol(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t)
	s.EnqueueChat(fakellm.Answer("你好").WithUsage(5, 2))
	resp, body, err := post(t, context.Background(), s.OllamaBaseURL()+"/api/chat",
		`{"model":"qwen","messages":[{"role":"user","content":"hi"}],"format":"json","options":{"temperature":0,"num_predict":64}}`)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("status %v err %v", resp, err)
	}
	var got struct {
		Message struct{ Content string } `json:"message"`
		Done    bool                     `json:"done"`
		Prompt  int                      `json:"prompt_eval_count"`
		Eval    int                      `json:"eval_count"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(body), &got); err != nil {
		t.Fatal(err)
	}
	if got.Message.Content != "你好" || !got.Done || got.Prompt != 5 || got.Eval != 2 {
		t.Fatalf("answer = %+v", got)
	}
	r := s.ChatRequests()[0]
	if r.API != fakellm.APIOllama || r.ResponseFormat != "json" || r.MaxTokens != 64 {
		t.Fatalf("recorded = %+v", r)
	}
}

func TestChat_apiKeyIsChecked(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t, fakellm.WithAPIKey("sk-test"))
	resp, _, err := post(t, context.Background(), s.OpenAIBaseURL()+"/chat/completions", chatBody)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("without key: %v %v, want 401", resp, err)
	}
}

func TestEmbed_unscriptedVectorsAreDeterministic(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t, fakellm.WithEmbeddingDim(4))
	s.EnqueueEmbed(fakellm.VectorsOfDim(3))
	_, body, err := post(t, context.Background(), s.OpenAIBaseURL()+"/embeddings", `{"model":"e","input":["a","b"]}`)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Data []struct {
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &got); err != nil || len(got.Data) != 2 || len(got.Data[0].Embedding) != 3 {
		t.Fatalf("scripted dim: %v %s", err, body)
	}

	_, body, err = post(t, context.Background(), s.OllamaBaseURL()+"/api/embed", `{"model":"e","input":"a"}`)
	if err != nil {
		t.Fatal(err)
	}
	var ollama struct{ Embeddings [][]float32 }
	if err := json.Unmarshal(body, &ollama); err != nil || len(ollama.Embeddings) != 1 {
		t.Fatalf("ollama embed: %v %s", err, body)
	}
	want := fakellm.Vector("a", 4)
	for i := range want {
		if ollama.Embeddings[0][i] != want[i] {
			t.Fatalf("vector = %v, want %v", ollama.Embeddings[0], want)
		}
	}
}

// recordingTB captures Errorf so the strictness of the fake can be tested.
type recordingTB struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, format)
}

func TestChat_unscriptedRequestFailsTheTest(t *testing.T) {
	t.Parallel()
	tb := &recordingTB{TB: t}
	s := fakellm.New(tb)
	resp, _, err := post(t, context.Background(), s.OpenAIBaseURL()+"/chat/completions", chatBody)
	if err != nil || resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("unscripted: %v %v, want 500", resp, err)
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if len(tb.errors) != 1 {
		t.Fatalf("Errorf called %d times, want 1", len(tb.errors))
	}
}

func TestChat_handlerAnswersAfterTheQueue(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t)
	s.EnqueueChat(fakellm.Answer("first"))
	s.HandleChat(func(r fakellm.Request) fakellm.Reply { return fakellm.Answer("echo:" + r.Text("user")) })
	for _, want := range []string{"first", "echo:hi", "echo:hi"} {
		_, body, err := post(t, context.Background(), s.OpenAIBaseURL()+"/chat/completions", chatBody)
		if err != nil || !strings.Contains(string(body), want) {
			t.Fatalf("answer %s (err %v), want %q", body, err, want)
		}
	}
}

const toolsBody = `{"model":"m","messages":[{"role":"user","content":"I am vegetarian"}],` +
	`"tools":[{"type":"function","function":{"name":"memory_save","parameters":{"type":"object"}}}]}`

func TestChat_toolCallsAnswerWithTheFunctionsOffered(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t)
	s.EnqueueChat(fakellm.CallTools(fakellm.ToolCall{Name: "memory_save", Arguments: `{"key":"diet"}`}))
	_, body, err := post(t, context.Background(), s.OpenAIBaseURL()+"/chat/completions", toolsBody)
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		Choices []struct {
			FinishReason string `json:"finish_reason"`
			Message      struct {
				Content   *string `json:"content"`
				ToolCalls []struct {
					ID       string `json:"id"`
					Type     string `json:"type"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(body, &resp); err != nil || len(resp.Choices) != 1 {
		t.Fatalf("answer %s: %v", body, err)
	}
	c := resp.Choices[0]
	if c.FinishReason != "tool_calls" || c.Message.Content != nil || len(c.Message.ToolCalls) != 1 {
		t.Fatalf("answer %s", body)
	}
	call := c.Message.ToolCalls[0]
	if call.ID == "" || call.Type != "function" || call.Function.Name != "memory_save" || call.Function.Arguments != `{"key":"diet"}` {
		t.Errorf("tool call %+v", call)
	}
	if got := s.ChatRequests()[0].Tools; len(got) != 1 || got[0] != "memory_save" {
		t.Errorf("recorded tools %v", got)
	}
}

func TestChat_callingAFunctionNotOfferedFailsTheTest(t *testing.T) {
	t.Parallel()
	tb := &recordingTB{TB: t}
	s := fakellm.New(tb)
	s.EnqueueChat(fakellm.CallTools(fakellm.ToolCall{Name: "memory_delete", Arguments: `{}`}))
	if _, _, err := post(t, context.Background(), s.OpenAIBaseURL()+"/chat/completions", toolsBody); err != nil {
		t.Fatal(err)
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if len(tb.errors) != 1 {
		t.Fatalf("Errorf called %d times, want 1", len(tb.errors))
	}
}

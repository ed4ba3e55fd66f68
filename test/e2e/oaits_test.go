package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"engram/test/wait"
)

// oaitsDir holds the OpenAI Agents SDK client and its locked dependencies.
const oaitsDir = "../oaits"

// runAgentsClient runs session.mjs and decodes what it printed into out.
func runAgentsClient(t *testing.T, node string, out any, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{"session.mjs"}, args...)...)
	cmd.Dir = oaitsDir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node session.mjs %v: %v\nstdout: %s\nstderr: %s", args[0], err, stdout, stderr.String())
	}
	if err := json.Unmarshal(stdout, out); err != nil {
		t.Fatalf("session.mjs printed %s: %v", stdout, err)
	}
}

// The OpenAI Agents SDK's OpenAIConversationsSession, given nothing but engram's
// base URL and a key, keeps its session in engram, on the embedded default and
// on PostgreSQL with Redis.
func TestOpenAIAgentsSession_sdkSessionUnchanged(t *testing.T) {
	runAgentsSession(t, false)
}

func TestOpenAIAgentsSession_sdkSessionUnchanged_Postgres_Redis(t *testing.T) {
	runAgentsSession(t, true)
}

func runAgentsSession(t *testing.T, postgres bool) {
	node := nodeClient(t, oaitsDir, "@openai/agents")
	env := append(backendEnv(t, postgres), "ENGRAM_API_KEYS=acme="+acmeMCPKey, "LONG_TERM_MEMORY_DEBOUNCE_SEC=0.5")
	srv := Start(t, env...)
	agentsSession(t, srv, env, node)
	srv.Stop()
}

type agentItem struct {
	ID     string `json:"id"`
	Type   string `json:"type"`
	Role   string `json:"role"`
	Text   string `json:"text"`
	Name   string `json:"name"`
	CallID string `json:"callId"`
}

// agentsSession: addItems of 25 items, getItems() all of them in order (past the
// first page of 20), getItems(3) the last three oldest first, popItem() the
// last, the function call served byte for byte as the SDK sent it; the session
// shows the turns, extraction learns from them and another session's context
// carries what it learned; deleting an item takes its text out of the session;
// clearSession() deletes the conversation and its session.
func agentsSession(t *testing.T, srv *Server, env []string, node string) {
	t.Helper()
	base := srv.Base + "/openai/users/alice/v1"
	auth := []string{"Authorization", "Bearer " + acmeMCPKey}
	var fill struct {
		ConversationID string      `json:"conversationId"`
		All            []agentItem `json:"all"`
		Last3          []agentItem `json:"last3"`
		Popped         *agentItem  `json:"popped"`
		AfterPop       int         `json:"afterPop"`
	}
	runAgentsClient(t, node, &fill, "fill", base, acmeMCPKey)
	conv := fill.ConversationID
	if !strings.HasPrefix(conv, "conv_") || len(fill.All) != 25 {
		t.Fatalf("conversation %q with %d items, want conv_… with 25", conv, len(fill.All))
	}
	wantTexts := map[int]string{0: "I am vegetarian. What could I cook tonight in Paris?", 1: "Let me check the weather in Paris first.",
		4: "Question 1: another idea?", 23: "Answer 20: a ratatouille, variation 20.", 24: "Question 21: another idea?"}
	for i, text := range wantTexts {
		if fill.All[i].Text != text {
			t.Errorf("item %d says %q, want %q", i, fill.All[i].Text, text)
		}
	}
	call := fill.All[2]
	if call.Type != "function_call" || call.Name != "get_weather" || call.CallID != "call_weather_1" || !strings.HasPrefix(call.ID, "fc_") ||
		fill.All[3].Type != "function_call_result" || !strings.HasPrefix(fill.All[0].ID, "msg_") {
		t.Errorf("items 0-3: %+v", fill.All[:4])
	}
	if len(fill.Last3) != 3 || fill.Last3[0] != fill.All[22] || fill.Last3[2] != fill.All[24] {
		t.Errorf("getItems(3) = %+v, want items 22-24 oldest first", fill.Last3)
	}
	if fill.Popped == nil || *fill.Popped != fill.All[24] || fill.AfterPop != 24 {
		t.Errorf("popItem() = %+v, then %d items; want item 24, then 24", fill.Popped, fill.AfterPop)
	}

	// The function call comes back as the SDK sent it, with engram's id first.
	sent := `"type":"function_call","name":"get_weather","call_id":"call_weather_1",` +
		`"arguments":"{\"city\":\"Paris\",\"units\":\"metric\",\"note\":\"<b>&</b> \\u00e9\"}","status":"completed"}`
	if got := rawGet(t, srv, base+"/conversations/"+conv+"/items/"+call.ID, auth); got != `{"id":"`+call.ID+`",`+sent {
		t.Errorf("the function call is served as\n%s\nwant\n%s", got, `{"id":"`+call.ID+`",`+sent)
	}

	// The conversation is a session: its turns are the session's messages.
	view := conversationSession(t, srv, conv, auth)
	if len(view.Messages) < 2 || view.Messages[0].Content != wantTexts[0] || view.Messages[1].Content != wantTexts[1] {
		t.Fatalf("session messages: %+v", view.Messages)
	}
	var diet struct {
		Content string `json:"content"`
	}
	wait.Until(t, 60*time.Second, "a memory learned from the conversation", func() bool {
		return srv.Do(http.MethodGet, "/v1/users/alice/memories/diet", nil, &diet, auth...) == http.StatusOK
	})
	if !strings.Contains(diet.Content, "vegetarian") {
		t.Errorf("diet = %q", diet.Content)
	}
	var ctxOut struct {
		Prompt string `json:"prompt"`
	}
	if code := srv.Do(http.MethodPost, "/v1/users/alice/context", map[string]any{"query": "what is my diet?", "session_id": "another-chat"},
		&ctxOut, auth...); code != http.StatusOK || !strings.Contains(ctxOut.Prompt, "vegetarian") {
		t.Errorf("context in another session = %d %q", code, ctxOut.Prompt)
	}

	// Deleting an answer takes its text out of the session.
	answer := fill.All[23]
	if code := srv.Do(http.MethodDelete, "/openai/users/alice/v1/conversations/"+conv+"/items/"+answer.ID, nil, nil, auth...); code != http.StatusOK {
		t.Fatalf("delete item = %d", code)
	}
	for _, m := range conversationSession(t, srv, conv, auth).Messages {
		if m.Content == answer.Text {
			t.Errorf("the session still holds the deleted answer %q", answer.Text)
		}
	}
	for _, content := range chatMessages(t, srv, conv, auth) {
		if strings.Contains(content, answer.Text) {
			t.Errorf("the chat's stored messages still hold the deleted answer %q", answer.Text)
		}
	}

	// A wrong key is refused in OpenAI's error shape, as the SDK reads it.
	var refused struct {
		Error struct {
			Type string `json:"type"`
			Code string `json:"code"`
		} `json:"error"`
	}
	if code := srv.Do(http.MethodGet, "/openai/users/alice/v1/conversations/"+conv, nil, &refused, "Authorization", "Bearer wrong"); code != http.StatusUnauthorized ||
		refused.Error.Code != "invalid_api_key" || refused.Error.Type != "invalid_request_error" {
		t.Errorf("a wrong key = %d %+v", code, refused)
	}

	// A key of alice's reaches her conversations; a key of bob's does not, and
	// is told so in OpenAI's error shape.
	aliceKey := strings.TrimSpace(cli(t, env, "keys", "create", "--tenant", "acme", "--user", "alice"))
	bobKey := strings.TrimSpace(cli(t, env, "keys", "create", "--tenant", "acme", "--user", "bob"))
	if code := srv.Do(http.MethodGet, "/openai/users/alice/v1/conversations/"+conv, nil, nil, bearer(aliceKey)...); code != http.StatusOK {
		t.Errorf("alice's key = %d", code)
	}
	var outOfReach struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if code := srv.Do(http.MethodGet, "/openai/users/alice/v1/conversations/"+conv, nil, &outOfReach, bearer(bobKey)...); code != http.StatusForbidden ||
		outOfReach.Error.Type != "permission_error" || !strings.Contains(outOfReach.Error.Message, "reaches user bob only") {
		t.Errorf("bob's key on alice's conversation = %d %+v", code, outOfReach)
	}

	var clear struct {
		Before int `json:"before"`
		Status int `json:"status"`
		Error  struct {
			Type string `json:"type"`
			Code string `json:"code"`
		} `json:"error"`
	}
	runAgentsClient(t, node, &clear, "clear", base, acmeMCPKey, conv)
	if clear.Before != 23 || clear.Status != http.StatusNotFound || clear.Error.Type != "invalid_request_error" {
		t.Errorf("clear: %+v; want 23 items before, then a 404 invalid_request_error", clear)
	}
	if code := srv.Do(http.MethodGet, "/v1/users/alice/sessions/"+conv, nil, nil, auth...); code != http.StatusNotFound {
		t.Errorf("the session after clearSession = %d, want 404", code)
	}
	if msgs := chatMessages(t, srv, conv, auth); len(msgs) != 0 {
		t.Errorf("the chat's stored messages after clearSession: %v", msgs)
	}
}

type sessionMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func conversationSession(t *testing.T, srv *Server, conv string, auth []string) struct{ Messages []sessionMessage } {
	t.Helper()
	var view struct {
		Messages []sessionMessage `json:"messages"`
	}
	if code := srv.Do(http.MethodGet, "/v1/users/alice/sessions/"+conv, nil, &view, auth...); code != http.StatusOK {
		t.Fatalf("session %s = %d", conv, code)
	}
	return struct{ Messages []sessionMessage }{view.Messages}
}

// chatMessages are the contents of the stored messages of the conversation
// (what extraction reads).
func chatMessages(t *testing.T, srv *Server, conv string, auth []string) []string {
	t.Helper()
	var list struct {
		Items []struct {
			Content string `json:"content"`
		} `json:"items"`
	}
	if code := srv.Do(http.MethodGet, "/v1/users/alice/messages?conversation_id="+conv, nil, &list, auth...); code != http.StatusOK {
		t.Fatalf("messages of %s = %d", conv, code)
	}
	out := make([]string, len(list.Items))
	for i, m := range list.Items {
		out[i] = m.Content
	}
	return out
}

// rawGet is the body of a GET, byte for byte.
func rawGet(t *testing.T, srv *Server, url string, headers []string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s = %d %s", url, resp.StatusCode, b)
	}
	return string(bytes.TrimSpace(b))
}

package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"

	"engram/test/fakellm"
	"engram/test/wait"
)

type contextAnswer struct {
	Sections struct {
		Profile        string `json:"profile"`
		Summary        string `json:"summary"`
		RecentMessages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"recent_messages"`
		Memories []struct {
			Key     string `json:"key"`
			Content string `json:"content"`
		} `json:"memories"`
		Episodes []struct {
			MessageID      string `json:"message_id"`
			ConversationID string `json:"conversation_id"`
			Content        string `json:"content"`
		} `json:"episodes"`
	} `json:"sections"`
	Prompt        string `json:"prompt"`
	TraceID       string `json:"trace_id"`
	InjectedChars int    `json:"injected_chars"`
}

type traceAnswer struct {
	ID    string `json:"id"`
	Items []struct {
		ID      string `json:"id"`
		Section string `json:"section"`
		Snippet string `json:"snippet"`
	} `json:"items"`
	RawHits []struct {
		ID     string `json:"id"`
		Kept   bool   `json:"kept"`
		Reason string `json:"reason"`
	} `json:"raw_hits"`
	InjectedChars int `json:"injected_chars"`
}

func askContext(t *testing.T, srv *Server, user string, body map[string]any) contextAnswer {
	t.Helper()
	var out contextAnswer
	if code := srv.Do(http.MethodPost, "/v1/users/"+user+"/context", body, &out); code != http.StatusOK {
		t.Fatalf("context %v = %d", body, code)
	}
	return out
}

// checkTrace reads the call's trace and fails unless it explains the block:
// every item's snippet is in it, and every raw hit is kept or has a reason.
func checkTrace(t *testing.T, srv *Server, a contextAnswer) traceAnswer {
	t.Helper()
	var tr traceAnswer
	if code := srv.Do(http.MethodGet, "/v1/traces/"+a.TraceID, nil, &tr); code != http.StatusOK || tr.ID != a.TraceID {
		t.Fatalf("trace %s = %d %+v", a.TraceID, code, tr)
	}
	if tr.InjectedChars != a.InjectedChars {
		t.Errorf("trace says %d characters, the call %d", tr.InjectedChars, a.InjectedChars)
	}
	for _, it := range tr.Items {
		if first := strings.Fields(it.Snippet); len(first) == 0 || !strings.Contains(a.Prompt, first[0]) {
			t.Errorf("item %s (%s): snippet %q not in the block", it.ID, it.Section, it.Snippet)
		}
	}
	kept := 0
	for _, h := range tr.RawHits {
		if !h.Kept && h.Reason == "" {
			t.Errorf("raw hit %s dropped without a reason", h.ID)
		}
		if h.Kept {
			kept++
		}
	}
	if kept != len(tr.Items) {
		t.Errorf("%d kept raw hits, %d items", kept, len(tr.Items))
	}
	return tr
}

// agentContextFlow is an agent middleware end to end: before each agent run the
// context call, the block put in the model's system prompt (a langchaingo client
// of the scripted OpenAI-compatible server), after it record_exchange; later calls
// see the session's summary and recent messages and the memory extracted from
// it, a new session sees the first one as past conversation, and an erased user
// gets an empty context.
//
// The fold, the extraction and the lexical pass are background work whose pace
// depends on the machine's load: the flow waits for each to be done (on the
// session, the memory, the search), for as long as the test run allows
// (wait.Remaining), and only then asks what the context shows.
func agentContextFlow(t *testing.T, srv *Server, user string) {
	t.Helper()
	if code := srv.Do(http.MethodPatch, "/v1/users/"+user+"/profile", map[string]any{"display_name": "李雷", "position": "技术主管",
		"department": "研发中心"}, nil, "X-Acting-User", user); code != http.StatusOK {
		t.Fatalf("profile = %d", code)
	}
	model := fakellm.New(t)
	model.HandleChat(func(r fakellm.Request) fakellm.Reply { return fakellm.Answer("好的，已记下。") })
	llm, err := openai.New(openai.WithBaseURL(model.OpenAIBaseURL()), openai.WithToken("sk-test"), openai.WithModel("gpt-test"))
	if err != nil {
		t.Fatal(err)
	}
	turn := func(session, question string) contextAnswer {
		t.Helper()
		ctxAnswer := askContext(t, srv, user, map[string]any{"query": question, "session_id": session, "flow_id": "report"})
		resp, err := llm.GenerateContent(t.Context(), []llms.MessageContent{
			llms.TextParts(llms.ChatMessageTypeSystem, "你是研发中心的助手。\n\n"+ctxAnswer.Prompt),
			llms.TextParts(llms.ChatMessageTypeHuman, question),
		})
		if err != nil {
			t.Fatal(err)
		}
		if code := srv.Do(http.MethodPost, "/v1/users/"+user+"/sessions/"+session+"/exchanges", map[string]any{"flow_id": "report",
			"flow_name": "季度汇报", "user_message": question, "assistant_message": resp.Choices[0].Content}, nil); code != http.StatusAccepted {
			t.Fatalf("record_exchange = %d", code)
		}
		return ctxAnswer
	}
	first := turn("s1", "你好，我想准备下周三的季度汇报。")
	if !strings.HasPrefix(first.Prompt, "[跨会话记忆]\n") || !strings.Contains(first.Prompt, "## 用户画像\n> 姓名: 李雷 | 职位: 技术主管 | 部门: 研发中心") ||
		len(first.Sections.RecentMessages) != 0 {
		t.Errorf("the first call of a new user:\n%s", first.Prompt)
	}
	checkTrace(t, srv, first)
	for _, q := range []string{"请记住我叫李雷，是研发中心的技术主管。", "汇报要包括 3 个项目的进度和预算。", "我们决定把发布推迟到 12 月 15 日。"} {
		turn("s1", q)
	}
	// The model saw the block in its system prompt.
	requests := model.ChatRequests()
	if system := requests[len(requests)-1].Text("system"); !strings.Contains(system, "## 最近对话\n") || !strings.Contains(system, "- 用户 > 汇报要包括 3 个项目的进度和预算。") {
		t.Errorf("the model's last system prompt:\n%s", system)
	}
	// Threshold 6, keep 2: the older turns are folded; the name is extracted.
	wait.Until(t, wait.Remaining(t), "the session's older turns folded into a summary", func() bool {
		var v sessionView
		if code := srv.Do(http.MethodGet, "/v1/users/"+user+"/sessions/s1?flow_id=report", nil, &v); code != http.StatusOK {
			t.Fatalf("get session: %d", code)
		}
		return v.Meta.SummaryVersion > 0
	})
	wait.Until(t, wait.Remaining(t), "the name said in the session extracted", func() bool {
		var m struct {
			Content string `json:"content"`
		}
		return srv.Do(http.MethodGet, "/v1/users/"+user+"/memories/name", nil, &m) == http.StatusOK && strings.Contains(m.Content, "李雷")
	})
	var last contextAnswer
	wait.Until(t, wait.Remaining(t), "the summary and the extracted name in the context", func() bool {
		last = askContext(t, srv, user, map[string]any{"query": "李雷的职位是什么？", "session_id": "s1"})
		// The name (importance 4) is a standing memory: in the block whatever the question.
		ok := last.Sections.Summary != "" && len(last.Sections.RecentMessages) > 0 && strings.Contains(last.Prompt, "## 常驻记忆\n- [fact] name > ")
		if !ok && testing.Verbose() {
			t.Logf("not yet:\n%s", last.Prompt)
		}
		return ok
	})
	later := askContext(t, srv, user, map[string]any{"query": "李雷的职位是什么？", "session_id": "s1"})
	for _, want := range []string{"## 用户画像", "## 常驻记忆\n", "## 对话摘要\n> ", "## 最近对话\n", "李雷", "\n[/跨会话记忆]"} {
		if !strings.Contains(later.Prompt, want) {
			t.Errorf("the later call lacks %q:\n%s", want, later.Prompt)
		}
	}
	checkTrace(t, srv, later)
	// A new session: the first is past conversation now (episodes), found once
	// the indexer's lexical pass has its messages.
	wait.Until(t, wait.Remaining(t), "the first session's turns as episodes of a new session", func() bool {
		a := askContext(t, srv, user, map[string]any{"query": "汇报的预算包括几个项目？", "session_id": "s2", "flow_id": "report"})
		return strings.Contains(a.Prompt, "## 相关历史\n") && len(a.Sections.Episodes) > 0 && a.Sections.Episodes[0].ConversationID == "s1"
	})
	fresh := askContext(t, srv, user, map[string]any{"query": "汇报的预算包括几个项目？", "session_id": "s2", "flow_id": "report", "budget_chars": 600})
	if fresh.InjectedChars > 600 || len(fresh.Sections.RecentMessages) != 0 || fresh.Sections.Summary != "" {
		t.Errorf("a new session at 600 characters: %d characters, %+v", fresh.InjectedChars, fresh.Sections)
	}
	tr := checkTrace(t, srv, fresh)
	var latest traceAnswer
	if code := srv.Do(http.MethodGet, "/v1/users/"+user+"/traces/latest", nil, &latest); code != http.StatusOK || latest.ID != tr.ID {
		t.Errorf("latest trace = %d %s, want %s", code, latest.ID, tr.ID)
	}
	// Another tenant's user of the same id is simply empty (open mode has one
	// tenant: another user stands for it here).
	if other := askContext(t, srv, user+"-other", map[string]any{"query": "李雷的职位是什么？", "session_id": "s1"}); other.Prompt != "" {
		t.Errorf("another user sees:\n%s", other.Prompt)
	}
	// Erased: an empty context at once, and no trace.
	if code := srv.Do(http.MethodDelete, "/v1/users/"+user, nil, nil); code != http.StatusAccepted {
		t.Fatalf("erase = %d", code)
	}
	erased := askContext(t, srv, user, map[string]any{"query": "李雷的职位是什么？", "session_id": "s1"})
	if erased.Prompt != "" || erased.TraceID != "" || erased.InjectedChars != 0 || len(erased.Sections.Memories) != 0 {
		t.Errorf("an erased user's context: %+v", erased)
	}
	if code := srv.Do(http.MethodGet, "/v1/users/"+user+"/traces/latest", nil, nil); code != http.StatusNotFound {
		t.Errorf("an erased user's latest trace = %d", code)
	}
	if code := srv.Do(http.MethodGet, "/v1/traces/"+tr.ID, nil, nil); code != http.StatusNotFound {
		t.Errorf("an erased user's trace = %d", code)
	}
}

func TestContext_agentTurnsSeeTheirSessionMemoriesAndPastConversationsOnTheEmbeddedDefault(t *testing.T) {
	srv := Start(t, append([]string{"ENGRAM_DATA_DIR=" + t.TempDir()}, sessionFlowEnv...)...)
	agentContextFlow(t, srv, "lilei")
	srv.Stop()
}

func TestContext_agentTurnsSeeTheirSessionMemoriesAndPastConversationsOnPostgresAndRedis_Postgres_Redis(t *testing.T) {
	srv, _, _ := startOnPostgresAndRedis(t, sessionFlowEnv...)
	agentContextFlow(t, srv, "hanmeimei")
	srv.Stop()
}

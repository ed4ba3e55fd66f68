package e2e

import (
	"context"
	"engram/test/wait"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/redis/rueidis"
)

type sessionView struct {
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	Summary string `json:"summary"`
	Meta    struct {
		FlowName       string `json:"flow_name"`
		MessageCount   int    `json:"message_count"`
		Held           int    `json:"held"`
		SummaryVersion int    `json:"summary_version"`
	} `json:"meta"`
}

// sessionFlow is an agent middleware's session calls through the API: turns of
// one session recorded after each agent run, the session listed and read back
// (its older turns folded into a summary), the user's message extracted into a
// long-term memory, then the session deleted. The fold and the extraction are
// background work: it waits for them as long as the test run allows.
func sessionFlow(t *testing.T, srv *Server, user string) {
	t.Helper()
	turns := []struct{ user, assistant string }{
		{"你好，我想准备下周三的季度汇报。", "好的，我们先列提纲。"},
		{"请记住我叫李雷，是研发中心的技术主管。", "好的，李雷。"},
		{"汇报要包括 3 个项目的进度和预算。", "明白，我整理成三部分。"},
		{"我们决定把发布推迟到 12 月 15 日。", "好的，我把时间线改成 12 月 15 日。"},
	}
	for i, turn := range turns {
		var out struct {
			ExchangeID   string `json:"exchange_id"`
			MessageCount int    `json:"message_count"`
		}
		code := srv.Do(http.MethodPost, "/v1/users/"+user+"/sessions/s1/exchanges", map[string]any{
			"flow_id": "report", "flow_name": "季度汇报", "exchange_id": fmt.Sprintf("t%d", i),
			"user_message": turn.user, "assistant_message": turn.assistant,
		}, &out)
		if code != http.StatusAccepted || out.MessageCount != 2*(i+1) {
			t.Fatalf("turn %d: %d %+v", i, code, out)
		}
	}
	// A retry of the last turn records nothing twice.
	if code := srv.Do(http.MethodPost, "/v1/users/"+user+"/sessions/s1/exchanges", map[string]any{
		"flow_id": "report", "exchange_id": "t3", "user_message": turns[3].user, "assistant_message": turns[3].assistant,
	}, nil); code != http.StatusOK {
		t.Errorf("retry: %d", code)
	}
	var list struct {
		Items []struct {
			SessionID    string `json:"session_id"`
			FlowName     string `json:"flow_name"`
			MessageCount int    `json:"message_count"`
		} `json:"items"`
	}
	if code := srv.Do(http.MethodGet, "/v1/users/"+user+"/sessions", nil, &list); code != http.StatusOK || len(list.Items) != 1 ||
		list.Items[0].FlowName != "季度汇报" || list.Items[0].MessageCount != 8 {
		t.Fatalf("list: %d %+v", code, list)
	}
	// Threshold 6, keep 2: the scheduler folds the older turns.
	var v sessionView
	if !wait.For(wait.Remaining(t), func() bool {
		if code := srv.Do(http.MethodGet, "/v1/users/"+user+"/sessions/s1?flow_id=report", nil, &v); code != http.StatusOK {
			t.Fatalf("get: %d", code)
		}
		return v.Meta.SummaryVersion > 0
	}) {
		t.Fatalf("no fold: %+v", v)
	}
	// The fold may come after the third turn (6 messages) or the fourth (8): either
	// way the newest turn is held, and every turn is held or in the summary.
	last := len(v.Messages) - 1
	if last < 1 || v.Messages[last].Content != turns[3].assistant || v.Meta.Held != len(v.Messages) || v.Meta.MessageCount != 8 {
		t.Errorf("after the fold: %+v", v)
	}
	held := ""
	for _, m := range v.Messages {
		held += m.Content
	}
	for _, kept := range []string{"李雷", "3 个项目", "12 月 15 日"} {
		if !strings.Contains(v.Summary+held, kept) {
			t.Errorf("the session lost %q: summary %q, messages %q", kept, v.Summary, held)
		}
	}
	if !strings.Contains(v.Summary, "李雷") {
		t.Errorf("the summary lost the name said in the second turn: %q", v.Summary)
	}
	// The user's messages reached long-term extraction (debounce 0.2 s).
	wait.Until(t, wait.Remaining(t), "the name said in the session extracted", func() bool {
		var m struct {
			Content string `json:"content"`
		}
		return srv.Do(http.MethodGet, "/v1/users/"+user+"/memories/name", nil, &m) == http.StatusOK && strings.Contains(m.Content, "李雷")
	})
	if code := srv.Do(http.MethodDelete, "/v1/users/"+user+"/sessions/s1", nil, nil); code != http.StatusNoContent {
		t.Fatalf("delete: %d", code)
	}
	if code := srv.Do(http.MethodGet, "/v1/users/"+user+"/sessions/s1", nil, nil); code != http.StatusNotFound {
		t.Errorf("get after delete: %d", code)
	}
}

// sessionFlowEnv folds a session past six messages, keeping two, and extracts
// soon after a message.
var sessionFlowEnv = []string{"ENGRAM_SESSION_SUMMARY_THRESHOLD=6", "ENGRAM_SESSION_SUMMARY_KEEP=2", "LONG_TERM_MEMORY_DEBOUNCE_SEC=0.2",
	"ENGRAM_SESSION_FOLD_INTERVAL_SEC=1"}

func TestSessions_recordedTurnsFoldExtractAndDeleteOnTheEmbeddedDefault(t *testing.T) {
	srv := Start(t, append([]string{"ENGRAM_DATA_DIR=" + t.TempDir()}, sessionFlowEnv...)...)
	var ready struct {
		Redis string `json:"redis"`
	}
	srv.Do(http.MethodGet, "/readyz", nil, &ready)
	if ready.Redis != "disabled" {
		t.Errorf("readyz redis %q on the embedded default", ready.Redis)
	}
	sessionFlow(t, srv, "alice")
	srv.Stop()
}

func TestSessions_recordedTurnsFoldExtractAndDeleteOnPostgresAndRedis_Postgres_Redis(t *testing.T) {
	srv, redisAddr, prefix := startOnPostgresAndRedis(t, sessionFlowEnv...)
	var ready struct {
		Redis string `json:"redis"`
	}
	srv.Do(http.MethodGet, "/readyz", nil, &ready)
	if ready.Redis != "up" {
		t.Fatalf("readyz redis %q", ready.Redis)
	}
	sessionFlow(t, srv, "bob")
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{redisAddr}, DisableCache: true, ForceSingleClient: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n, _ := c.Do(context.Background(), c.B().Exists().Key(prefix+":default:bob:sessions").Build()).AsInt64()
	if n != 0 {
		t.Error("the deleted session's index entry is still in redis")
	}
	srv.Stop()
}

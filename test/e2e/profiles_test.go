package e2e

import (
	"engram/test/wait"
	"net/http"
	"strings"
	"testing"
	"time"
)

type profileView struct {
	UserID             string   `json:"user_id"`
	DisplayName        string   `json:"display_name"`
	TotalConversations int      `json:"total_conversations"`
	TotalTasksAssigned int      `json:"total_tasks_assigned"`
	TaskCompletionRate float64  `json:"task_completion_rate"`
	ExpertiseAreas     []string `json:"expertise_areas"`
	FavoriteWorkflows  []struct {
		FlowName string `json:"flow_name"`
		Count    int    `json:"count"`
	} `json:"favorite_workflows"`
	ProfileVersion int    `json:"profile_version"`
	Prompt         string `json:"prompt"`
	ReadAs         string `json:"read_as"`
}

// The "Done when", through the binary with the embedded default: a manager
// resolves a report by name, reads the profile the worker derived in the
// background, and gets an evaluation with the facts it used; a peer gets 403, and
// every manager read is in the audit log, which survives a restart.
func TestProfiles_managerResolvesReadsAndEvaluates(t *testing.T) {
	dataDir := t.TempDir()
	env := []string{"ENGRAM_DATA_DIR=" + dataDir, "LONG_TERM_MEMORY_DEBOUNCE_SEC=0.2",
		"ENGRAM_PROFILE_REFRESH_DEBOUNCE_SEC=1", "ENGRAM_PROFILE_REFRESH_MAX_WAIT_SEC=2"}
	srv := Start(t, env...)

	for _, m := range []map[string]any{
		{"user": "lead", "display_name": "刘组长", "department": "研发中心", "position": "技术主管"},
		{"user": "dev", "display_name": "王小明", "department": "研发中心", "position": "工程师", "manager_id": "lead"},
		{"user": "peer", "display_name": "李雷", "department": "研发中心", "position": "工程师", "manager_id": "lead"},
	} {
		user := m["user"].(string)
		delete(m, "user")
		if code := srv.Do(http.MethodPut, "/v1/org/users/"+user, m, nil); code != http.StatusCreated {
			t.Fatalf("put %s: %d", user, code)
		}
	}
	for i, text := range []string{"记住，我擅长数据分析。", "帮我生成本周的周报", "周报生成的格式再调整一下"} {
		if code := srv.Do(http.MethodPost, "/v1/users/dev/messages", map[string]any{
			"conversation_id": []string{"c1", "c2", "c2"}[i], "role": "user", "content": text}, nil); code != http.StatusAccepted {
			t.Fatalf("message %d: %d", i, code)
		}
	}
	for i, kind := range []string{"task_assigned", "task_assigned", "task_completed", "workflow_used", "workflow_used"} {
		ev := map[string]any{"event_id": "e" + string(rune('0'+i)), "kind": kind, "at": time.Now().UTC().Add(-time.Hour).Format(time.RFC3339)}
		if kind == "workflow_used" {
			ev["flow_id"], ev["flow_name"] = "weekly", "周报生成"
		}
		if code := srv.Do(http.MethodPost, "/v1/users/dev/activity", ev, nil); code != http.StatusAccepted {
			t.Fatalf("activity %d: %d", i, code)
		}
	}

	// The worker derives the profile after the debounce; wait for it, with a deadline.
	var p profileView
	if !wait.For(30*time.Second, func() bool {
		if code := srv.Do(http.MethodGet, "/v1/users/dev/profile", nil, &p, "X-Acting-User", "dev"); code != http.StatusOK {
			t.Fatalf("self read: %d", code)
		}
		return p.TotalConversations == 2 && p.TotalTasksAssigned == 2 && len(p.FavoriteWorkflows) == 1 && len(p.ExpertiseAreas) > 0
	}) {
		t.Fatalf("the profile was not derived within 30 s: %+v", p)
	}

	var found struct {
		Items []struct {
			UserID string `json:"user_id"`
		} `json:"items"`
	}
	if code := srv.Do(http.MethodGet, "/v1/org/users?name=Xiao%20Ming", nil, &found); code != http.StatusOK || len(found.Items) == 0 || found.Items[0].UserID != "dev" {
		t.Fatalf("Xiao Ming: %d %+v", code, found)
	}
	if code := srv.Do(http.MethodGet, "/v1/users/"+found.Items[0].UserID+"/profile", nil, &p, "X-Acting-User", "lead"); code != http.StatusOK || p.ReadAs != "manager" {
		t.Fatalf("manager read: %d %+v", code, p)
	}
	if p.TaskCompletionRate != 0.5 || p.ExpertiseAreas[0] != "数据分析" || !strings.Contains(p.Prompt, "常用流程: 周报生成(2次)") {
		t.Errorf("profile %+v", p)
	}
	if code := srv.Do(http.MethodGet, "/v1/users/dev/profile", nil, nil, "X-Acting-User", "peer"); code != http.StatusForbidden {
		t.Errorf("peer read: %d, want 403", code)
	}
	var report struct {
		Report    string `json:"report"`
		Generator string `json:"generator"`
		FactsUsed []struct {
			Text string `json:"text"`
		} `json:"facts_used"`
		GeneratedAt time.Time `json:"generated_at"`
	}
	if code := srv.Do(http.MethodPost, "/v1/users/dev/profile/report", nil, &report, "X-Acting-User", "lead"); code != http.StatusOK {
		t.Fatalf("report: %d", code)
	}
	if report.Generator != "rules" || len(report.FactsUsed) == 0 || !strings.Contains(report.Report, "完成率 50%") || report.GeneratedAt.IsZero() {
		t.Errorf("report %+v", report)
	}
	srv.Stop()

	srv = Start(t, env...)
	var audit struct {
		Items []struct {
			Actor  string `json:"actor"`
			Action string `json:"action"`
		} `json:"items"`
	}
	srv.Do(http.MethodGet, "/v1/audit?target_user=dev", nil, &audit)
	var got []string
	for _, e := range audit.Items {
		got = append(got, e.Actor+" "+e.Action)
	}
	if strings.Join(got, ", ") != "lead profile.read, peer profile.read.denied, lead report.create" {
		t.Errorf("audit after restart: %v", got)
	}
	srv.Stop()
}

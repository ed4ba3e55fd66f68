package bootstrap

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"engram/test/fakellm"
	"engram/test/wait"
)

// costOf reads one series of engram_llm_cost_*_total from /metrics: 0 when absent.
func costOf(t *testing.T, c sessionClient, series string) float64 {
	t.Helper()
	_, body := c.do(http.MethodGet, "/metrics", nil)
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindSubmatch(body)
	if m == nil {
		return 0
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// With a model configured, a session fold (the summary) and a manager's report
// are counted in the cost metrics by stage and tenant, calls and tokens, as
// extraction is: the model here is the scripted OpenAI-compatible server.
func TestLLMCost_summariesAndReportsAreCountedInTheMetrics(t *testing.T) {
	t.Parallel()
	model := fakellm.New(t)
	model.HandleChat(func(r fakellm.Request) fakellm.Reply {
		switch system := r.Text("system"); {
		case strings.Contains(system, "evaluation of an employee"):
			return fakellm.Answer(`{"report": "Leads the billing migration.", "facts_used": ["F1"]}`).WithUsage(900, 120)
		case strings.Contains(system, "conversation compression engine"):
			return fakellm.Answer("The user planned the billing migration with the assistant.").WithUsage(400, 60)
		}
		return fakellm.Answer(`{"candidates": []}`) // extraction of the turns: not what this test counts
	})
	c := sessionClient{t: t, base: "http://" + startServer(t, "ENGRAM_LLM_PROVIDER=openai", "LLM_API_BASE="+model.OpenAIBaseURL(),
		"LLM_MODEL=fake-chat", "LLM_MAX_RETRIES=0", "ENGRAM_SESSION_SUMMARY_THRESHOLD=4", "ENGRAM_SESSION_SUMMARY_KEEP=2"), http: http.DefaultClient}

	for _, r := range []struct {
		method, path string
		body         map[string]any
	}{
		{http.MethodPut, "/v1/org/users/boss", map[string]any{"display_name": "The Boss"}},
		{http.MethodPut, "/v1/org/users/dev", map[string]any{"display_name": "Dev", "manager_id": "boss"}},
		{http.MethodPut, "/v1/users/dev/memories/work-project", map[string]any{"type": "project", "content": "Leads the billing migration"}},
	} {
		if code, body := c.do(r.method, r.path, r.body); code >= 300 {
			t.Fatalf("%s %s = %d %s", r.method, r.path, code, body)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, c.base+"/v1/users/dev/profile/report", nil)
	req.Header.Set("X-Acting-User", "boss")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		Generator string `json:"generator"`
	}
	err = json.NewDecoder(resp.Body).Decode(&report)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || err != nil || report.Generator != "llm" {
		t.Fatalf("report = %d %+v (%v), want one the model wrote", resp.StatusCode, report, err)
	}

	for _, id := range []string{"x1", "x2"} { // four messages: the session is folded
		if code, body := c.do(http.MethodPost, "/v1/users/dev/sessions/s1/exchanges", map[string]any{"flow_id": "f1", "exchange_id": id,
			"user_message": "Plan the billing migration, step " + id, "assistant_message": "Step " + id + " is planned."}); code != http.StatusAccepted {
			t.Fatalf("record %s = %d %s", id, code, body)
		}
	}
	const tenant = `tenant="default"`
	wait.Until(t, 20*time.Second, "the fold's cost in /metrics", func() bool {
		return costOf(t, c, `engram_llm_cost_calls_total{stage="summarise",`+tenant+`}`) >= 1
	})
	for series, want := range map[string]float64{
		`engram_llm_cost_calls_total{stage="report",` + tenant + `}`:                       1,
		`engram_llm_cost_tokens_total{kind="prompt",stage="report",` + tenant + `}`:        900,
		`engram_llm_cost_tokens_total{kind="completion",stage="report",` + tenant + `}`:    120,
		`engram_llm_cost_tokens_total{kind="prompt",stage="summarise",` + tenant + `}`:     400,
		`engram_llm_cost_tokens_total{kind="completion",stage="summarise",` + tenant + `}`: 60,
	} {
		if got := costOf(t, c, series); got != want {
			t.Errorf("%s = %v, want %v", series, got, want)
		}
	}
}

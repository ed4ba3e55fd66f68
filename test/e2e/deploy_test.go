package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"engram/test/fakellm"
	"engram/test/testenv"
	"engram/test/wait"
)

// Shipped monitoring files, from the repository root.
const (
	dashboardFile = "deploy/grafana/engram.json"
	alertsFile    = "deploy/prometheus/alerts.yml"
)

func repoFile(t *testing.T, name string) string {
	t.Helper()
	return filepath.Join("..", "..", name)
}

// promqlName is a metric engram exports as it appears in a query.
var promqlName = regexp.MustCompile(`engram_[a-z0-9_]+`)

// metricNames are the engram metrics exprs name: a histogram's series
// (_bucket, _sum, _count) count as the histogram.
func metricNames(exprs []string) []string {
	set := map[string]bool{}
	for _, e := range exprs {
		for _, n := range promqlName.FindAllString(e, -1) {
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				n = strings.TrimSuffix(n, suffix)
			}
			set[n] = true
		}
	}
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// dashboardExprs are the queries of every panel of the dashboard, nested rows
// included.
func dashboardExprs(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(repoFile(t, dashboardFile))
	if err != nil {
		t.Fatal(err)
	}
	type panel struct {
		Title   string
		Targets []struct{ Expr string }
		Panels  []json.RawMessage
	}
	var dash struct {
		Title  string
		Panels []json.RawMessage
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	var exprs []string
	var walk func([]json.RawMessage)
	walk = func(raw []json.RawMessage) {
		for _, r := range raw {
			var p panel
			if err := json.Unmarshal(r, &p); err != nil {
				t.Fatalf("%s: panel: %v", dashboardFile, err)
			}
			for _, tg := range p.Targets {
				exprs = append(exprs, tg.Expr)
			}
			walk(p.Panels)
		}
	}
	walk(dash.Panels)
	return exprs
}

type alertRules struct {
	Groups []struct {
		Name  string
		Rules []struct {
			Alert string
			Expr  string
		}
	}
}

func alertExprs(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(repoFile(t, alertsFile))
	if err != nil {
		t.Fatal(err)
	}
	var rules alertRules
	if err := yaml.Unmarshal(data, &rules); err != nil {
		t.Fatalf("%s: %v", alertsFile, err)
	}
	var exprs []string
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			exprs = append(exprs, r.Expr)
		}
	}
	return exprs
}

// TestDeploy_dashboardAndAlertsNameOnlyMetricsThatExist: every metric the
// Grafana dashboard queries and the alert rules evaluate is one a running
// engram exports. Series of labelled metrics appear once something is counted,
// so the server first does what each panel watches: saves and searches
// memories, extracts messages with a model that reports its tokens, builds a
// context and erases a user.
func TestDeploy_dashboardAndAlertsNameOnlyMetricsThatExist(t *testing.T) {
	dash, alerts := dashboardExprs(t), alertExprs(t)
	if len(dash) < 20 || len(alerts) < 5 {
		t.Fatalf("%d dashboard queries and %d alert rules: the files were not read", len(dash), len(alerts))
	}
	wanted := metricNames(append(dash, alerts...))
	for _, topic := range []string{"engram_http_", "engram_context_", "engram_extraction_", "engram_index", "engram_llm_cost_", "engram_vector_breaker_state", "engram_messages_pending", "engram_vector_backlog", "engram_erasure_", "engram_trace_pending"} {
		if !slices.ContainsFunc(wanted, func(n string) bool { return strings.HasPrefix(n, topic) }) {
			t.Errorf("no query watches %s*", topic)
		}
	}

	model := fakellm.New(t)
	model.HandleEmbed(func(fakellm.Request) fakellm.Reply { return fakellm.VectorsOfDim(8) })
	model.HandleChat(func(fakellm.Request) fakellm.Reply {
		return fakellm.Answer(`{"candidates":[]}`).WithUsage(40, 5)
	})
	srv := Start(t, "ENGRAM_DATA_DIR="+t.TempDir(),
		"ENGRAM_EMBEDDER=openai", "MEMORY_EMBEDDING_API_BASE="+model.OpenAIBaseURL(),
		"MEMORY_EMBEDDING_MODEL=fake-embed", "MEMORY_EMBEDDING_DIM=8",
		"ENGRAM_LLM_PROVIDER=openai", "LLM_API_BASE="+model.OpenAIBaseURL(), "LLM_MODEL=fake-chat",
		"LONG_TERM_MEMORY_DEBOUNCE_SEC=0")
	if code := srv.Do(http.MethodPut, "/v1/users/alice/memories/pet", map[string]any{"type": "fact", "content": "Has a cat named Miso"}, nil); code != http.StatusCreated {
		t.Fatalf("save = %d", code)
	}
	msg := map[string]any{"conversation_id": "c1", "message_id": "m1", "role": "user", "content": "Please remember that I live in Lyon and work as a nurse."}
	if code := srv.Do(http.MethodPost, "/v1/users/alice/messages", msg, nil); code != http.StatusAccepted {
		t.Fatalf("post message = %d", code)
	}

	missing := wanted
	wait.Until(t, 60*time.Second, "every metric of the dashboard and alerts in /metrics", func() bool {
		// Searches and context calls again each time: the memory's vector may
		// not be synced yet the first time.
		srv.Do(http.MethodPost, "/v1/users/alice/search", map[string]any{"query": "cat", "mode": "dense"}, nil)
		srv.Do(http.MethodPost, "/v1/users/alice/context", map[string]any{"query": "What is my cat called?"}, nil)
		exported := exportedMetrics(t, srv.Base+"/metrics")
		missing = slices.DeleteFunc(slices.Clone(wanted), func(n string) bool { return exported[n] })
		return len(missing) == 0
	})
	if len(missing) > 0 {
		t.Errorf("named by %s or %s but not exported: %v", dashboardFile, alertsFile, missing)
	}
}

// exportedMetrics are the metric families /metrics lists.
func exportedMetrics(t *testing.T, url string) map[string]bool {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	names := map[string]bool{}
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		name := line[:strings.IndexAny(line, "{ ")]
		names[name] = true
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if strings.HasSuffix(name, suffix) {
				names[strings.TrimSuffix(name, suffix)] = true
			}
		}
	}
	return names
}

// TestDeploy_alertRulesPassPromtool: Prometheus itself accepts the rules file
// (syntax, PromQL, templates). promtool comes with Debian's prometheus package,
// which test/services.sh installs.
func TestDeploy_alertRulesPassPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv(testenv.RequireServicesVar) == "1" {
			t.Fatalf("promtool is not on PATH (%s=1); install Debian's prometheus package (test/services.sh up)", testenv.RequireServicesVar)
		}
		t.Skip("promtool is not on PATH; install Debian's prometheus package (test/services.sh up)")
	}
	out, err := exec.Command(promtool, "check", "rules", repoFile(t, alertsFile)).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool check rules %s: %v\n%s", alertsFile, err, out)
	}
	if !strings.Contains(string(out), "SUCCESS") {
		t.Errorf("promtool said:\n%s", out)
	}
}

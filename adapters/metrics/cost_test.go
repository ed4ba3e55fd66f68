package metrics_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"engram/adapters/metrics"
	"engram/app/extraction"
	"engram/app/sessions"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/domain/session"
	"engram/ports"
)

func TestLLMCost_callsTokensAndMessagesByStageAndTenant(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	x := m.Extraction()
	user := func(s conversation.Status) conversation.Message {
		return conversation.Message{Role: conversation.RoleUser, Status: s}
	}
	x.Processed(extraction.Report{
		Scope:    memory.Scope{Tenant: "acme", User: "u1"},
		Messages: []conversation.Message{user(conversation.StatusProcessed), user(conversation.StatusProcessed), user(conversation.StatusSkipped)},
		Calls: []extraction.Call{
			{Stage: extraction.StageExtract, Usage: ports.LLMUsage{Calls: 1, PromptTokens: 700, CompletionTokens: 40}},
			{Stage: extraction.StageRefine, Fallback: true}, // no model: not a cost
		},
	})
	x.Processed(extraction.Report{
		Scope:    memory.Scope{Tenant: "acme", User: "u2"},
		Messages: []conversation.Message{user(conversation.StatusPending)},
		Wait:     &extraction.Wait{Stage: extraction.StageExtract, Reason: extraction.WaitBudget, Until: time.Now()},
	})
	m.LLMCost().Record(metrics.StageSummarise, "beta", ports.LLMUsage{Calls: 2, PromptTokens: 90, CompletionTokens: 30})

	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"engram_llm_cost_calls_total", []string{"stage", "extract", "tenant", "acme"}, 1},
		{"engram_llm_cost_tokens_total", []string{"stage", "extract", "tenant", "acme", "kind", "prompt"}, 700},
		{"engram_llm_cost_calls_total", []string{"stage", "summarise", "tenant", "beta"}, 2},
		{"engram_extraction_user_messages_total", []string{"tenant", "acme"}, 3}, // the waiting one is not finished
		{"engram_llm_waits_total", []string{"tenant", "acme", "reason", "llm_budget"}, 1},
		{"engram_extraction_duration_seconds", []string{"outcome", "waited"}, 1},
	} {
		if got := value(t, m, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
}

// stubReports answers with usage, and fails when told to.
type stubReports struct {
	usage ports.LLMUsage
	err   error
}

func (s stubReports) WriteReport(context.Context, ports.ReportRequest) (ports.ReportDraft, ports.LLMUsage, error) {
	return ports.ReportDraft{Text: "report"}, s.usage, s.err
}

// A fold and a report cost what their model calls cost, by tenant, as extraction
// does: the summary through the fold observer, the report through the writer.
func TestLLMCost_summariesAndReportsAreCountedByTenant(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	events := m.SessionEvents()
	acme := session.Ref{Scope: memory.Scope{Tenant: "acme", User: "u1"}, FlowID: "f", SessionID: "s"}
	events.Folded(acme, sessions.FoldDone, time.Second, ports.LLMUsage{Calls: 1, PromptTokens: 400, CompletionTokens: 80})
	events.Folded(acme, sessions.FoldFallback, time.Second, ports.LLMUsage{Calls: 3, PromptTokens: 1200}) // retries, then the rules
	events.Folded(acme, sessions.FoldSkipped, time.Second, ports.LLMUsage{})

	writer := m.LLMCost().ReportWriter(stubReports{usage: ports.LLMUsage{Calls: 1, PromptTokens: 900, CompletionTokens: 200}})
	if _, _, err := writer.WriteReport(context.Background(), ports.ReportRequest{Scope: memory.Scope{Tenant: "beta", User: "dev"}}); err != nil {
		t.Fatal(err)
	}
	failing := m.LLMCost().ReportWriter(stubReports{usage: ports.LLMUsage{Calls: 2, PromptTokens: 1800}, err: errors.New("model down")})
	if _, _, err := failing.WriteReport(context.Background(), ports.ReportRequest{Scope: memory.Scope{Tenant: "beta", User: "dev"}}); err == nil {
		t.Fatal("the writer's error was swallowed")
	}

	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"engram_llm_cost_calls_total", []string{"stage", "summarise", "tenant", "acme"}, 4},
		{"engram_llm_cost_tokens_total", []string{"stage", "summarise", "tenant", "acme", "kind", "prompt"}, 1600},
		{"engram_llm_cost_tokens_total", []string{"stage", "summarise", "tenant", "acme", "kind", "completion"}, 80},
		{"engram_llm_cost_calls_total", []string{"stage", "report", "tenant", "beta"}, 3},
		{"engram_llm_cost_tokens_total", []string{"stage", "report", "tenant", "beta", "kind", "prompt"}, 2700},
		{"engram_llm_cost_tokens_total", []string{"stage", "report", "tenant", "beta", "kind", "completion"}, 200},
	} {
		if got := value(t, m, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
}

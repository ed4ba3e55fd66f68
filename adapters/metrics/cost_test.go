package metrics_test

import (
	"testing"
	"time"

	"engram/adapters/metrics"
	"engram/app/extraction"
	"engram/domain/conversation"
	"engram/domain/memory"
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

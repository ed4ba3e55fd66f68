package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"engram/app/extraction"
	"engram/domain/conversation"
	"engram/ports"
)

// Stages of model calls in the cost metrics: extraction's two (LLMCost.extraction),
// the session summary (SessionEvents.Folded) and the manager's report
// (LLMCost.ReportWriter), all recorded through LLMCost.Record.
const (
	StageExtract   = extraction.StageExtract
	StageRefine    = extraction.StageRefine
	StageSummarise = "summarise"
	StageReport    = "report"
)

// LLMCost counts what the model costs, by stage and tenant: requests sent (retries
// included) and tokens, the user messages extraction finished (so calls per user
// message is engram_llm_cost_calls_total{stage=~"extract|refine"} over
// engram_extraction_user_messages_total), and the runs that waited for the model
// instead of calling it (tenant budget, HTTP 429).
type LLMCost struct {
	calls    *prometheus.CounterVec
	tokens   *prometheus.CounterVec
	messages *prometheus.CounterVec
	waits    *prometheus.CounterVec
}

// LLMCost returns the cost collectors, registering them on first use.
func (m *Metrics) LLMCost() *LLMCost {
	m.costOnce.Do(func() {
		m.cost = &LLMCost{
			calls: prometheus.NewCounterVec(prometheus.CounterOpts{
				Name: "engram_llm_cost_calls_total", Help: "Requests sent to the model, retries included, by stage (extract, refine, summarise, report) and tenant.",
			}, []string{"stage", "tenant"}),
			tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
				Name: "engram_llm_cost_tokens_total", Help: "Tokens the model reported, by stage, tenant and kind (prompt, completion).",
			}, []string{"stage", "tenant", "kind"}),
			messages: prometheus.NewCounterVec(prometheus.CounterOpts{
				Name: "engram_extraction_user_messages_total", Help: "User messages extraction finished (PROCESSED, SKIPPED or FAILED), by tenant: the denominator of calls per message.",
			}, []string{"tenant"}),
			waits: prometheus.NewCounterVec(prometheus.CounterOpts{
				Name: "engram_llm_waits_total", Help: "Extraction runs that waited instead of calling the model, by tenant and reason (llm_budget, rate_limited); their messages stay PENDING.",
			}, []string{"tenant", "reason"}),
		}
		m.Registry.MustRegister(m.cost.calls, m.cost.tokens, m.cost.messages, m.cost.waits)
	})
	return m.cost
}

// Record counts one stage's model usage for a tenant.
func (c *LLMCost) Record(stage, tenant string, u ports.LLMUsage) {
	if u.Calls == 0 {
		return // no model involved (the rules, a fallback)
	}
	c.calls.WithLabelValues(stage, tenant).Add(float64(u.Calls))
	c.tokens.WithLabelValues(stage, tenant, "prompt").Add(float64(u.PromptTokens))
	c.tokens.WithLabelValues(stage, tenant, "completion").Add(float64(u.CompletionTokens))
}

// extraction counts one extraction run.
func (c *LLMCost) extraction(r extraction.Report) {
	tenant := r.Scope.Tenant
	for _, call := range r.Calls {
		c.Record(call.Stage, tenant, call.Usage)
	}
	finished := 0
	for _, m := range r.Messages {
		if m.IsUser() && m.Status != conversation.StatusPending {
			finished++
		}
	}
	if finished > 0 {
		c.messages.WithLabelValues(tenant).Add(float64(finished))
	}
	if r.Wait != nil {
		c.waits.WithLabelValues(tenant, r.Wait.Reason).Inc()
	}
}

package metrics

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"engram/app/extraction"
	"engram/domain/conversation"
	"engram/ports"
)

// Extraction observes the extraction pipeline (extraction.Observer): message
// outcomes, skips and dropped candidates by reason, model calls and tokens by stage
// and outcome, and the duration of a conversation's run.
type Extraction struct {
	messages  *prometheus.CounterVec
	skipped   *prometheus.CounterVec
	dropped   *prometheus.CounterVec
	calls     *prometheus.CounterVec
	attempts  *prometheus.CounterVec
	tokens    *prometheus.CounterVec
	duration  *prometheus.HistogramVec
	candidate *prometheus.CounterVec
	// instructionLike counts user messages found instruction-like, by reason.
	instructionLike *prometheus.CounterVec
	cost            *LLMCost
}

var _ extraction.Observer = (*Extraction)(nil)

// LLM call outcomes.
const (
	OutcomeOK        = "ok"
	OutcomeError     = "error"
	OutcomeTimeout   = "timeout"
	OutcomeBadOutput = "bad_output"
)

// Extraction registers the pipeline's collectors. Call it once per Metrics.
func (m *Metrics) Extraction() *Extraction {
	x := &Extraction{
		messages: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "engram_extraction_messages_total", Help: "User messages the worker finished, by outcome status.",
		}, []string{"status"}),
		skipped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "engram_extraction_skipped_messages_total", Help: "Messages skipped without a model call, by reason.",
		}, []string{"reason"}),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "engram_extraction_dropped_candidates_total", Help: "Candidates not written, by reason (boundaries, grounding, refine, write limit).",
		}, []string{"reason"}),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "engram_llm_calls_total", Help: "Extraction model calls by stage (extract, refine) and outcome.",
		}, []string{"stage", "outcome"}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "engram_llm_requests_total", Help: "HTTP requests sent to the model by stage, retries included.",
		}, []string{"stage"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "engram_llm_tokens_total", Help: "Tokens the model reported, by stage and kind (prompt, completion).",
		}, []string{"stage", "kind"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "engram_extraction_duration_seconds",
			Help:    "Time to run the pipeline over one conversation's due messages, by outcome.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 90},
		}, []string{"outcome"}),
		candidate: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "engram_extraction_candidates_total", Help: "Candidates by fate: proposed, written, unchanged, reused (a similar memory's key), merged, colliding (sent to stage 2), routed_to_profile (identity slots set on the profile, never memories), deferred (over their message's write limit, written by the next run).",
		}, []string{"fate"}),
	}
	x.instructionLike = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "engram_extraction_instruction_like_messages_total",
		Help: "User messages found instruction-like (an override, a role marker, a fake delimiter…), by reason instruction_like:<rule>; their candidates are dropped with the same reason.",
	}, []string{"reason"})
	for _, s := range conversation.Statuses {
		x.messages.WithLabelValues(string(s))
	}
	for _, stage := range []string{extraction.StageExtract, extraction.StageRefine} {
		for _, o := range []string{OutcomeOK, OutcomeError, OutcomeTimeout, OutcomeBadOutput} {
			x.calls.WithLabelValues(stage, o)
		}
	}
	m.Registry.MustRegister(x.messages, x.skipped, x.dropped, x.calls, x.attempts, x.tokens, x.duration, x.candidate, x.instructionLike)
	x.cost = m.LLMCost()
	return x
}

// Processed implements extraction.Observer.
func (x *Extraction) Processed(r extraction.Report) {
	for _, msg := range r.Messages {
		x.messages.WithLabelValues(string(msg.Status)).Inc()
	}
	for reason, n := range r.Skipped {
		x.skipped.WithLabelValues(reason).Add(float64(n))
	}
	for reason, n := range r.Dropped {
		x.dropped.WithLabelValues(reason).Add(float64(n))
	}
	for reason, n := range r.InstructionLike {
		x.instructionLike.WithLabelValues(reason).Add(float64(n))
	}
	for _, c := range r.Calls {
		if c.Usage.Calls == 0 {
			continue // the rules, or the deterministic fallback: no model involved
		}
		x.calls.WithLabelValues(c.Stage, outcome(c.Err)).Inc()
		x.attempts.WithLabelValues(c.Stage).Add(float64(c.Usage.Calls))
		x.tokens.WithLabelValues(c.Stage, "prompt").Add(float64(c.Usage.PromptTokens))
		x.tokens.WithLabelValues(c.Stage, "completion").Add(float64(c.Usage.CompletionTokens))
	}
	x.candidate.WithLabelValues("proposed").Add(float64(r.Candidates))
	x.candidate.WithLabelValues("written").Add(float64(r.Written))
	x.candidate.WithLabelValues("unchanged").Add(float64(r.Unchanged))
	x.candidate.WithLabelValues("reused").Add(float64(r.Reused))
	x.candidate.WithLabelValues("merged").Add(float64(r.Merged))
	x.candidate.WithLabelValues("colliding").Add(float64(r.Colliding))
	x.candidate.WithLabelValues("routed_to_profile").Add(float64(r.RoutedToProfile))
	x.candidate.WithLabelValues("deferred").Add(float64(r.Deferred))
	result := "ok"
	switch {
	case r.Err != nil:
		result = "failed"
	case r.Wait != nil:
		result = "waited"
	}
	x.duration.WithLabelValues(result).Observe(r.Duration.Seconds())
	x.cost.extraction(r)
}

func outcome(err error) string {
	switch {
	case err == nil:
		return OutcomeOK
	case errors.Is(err, context.DeadlineExceeded):
		return OutcomeTimeout
	case extraction.IsBadOutput(err):
		return OutcomeBadOutput
	}
	return OutcomeError
}

// MessageQueue registers the message backlog, read from the store at scrape time:
// messages by status, the pending depth and the age of the oldest PENDING message.
func (m *Metrics) MessageQueue(stats func(ctx context.Context, now time.Time) (ports.MessageStats, error)) {
	m.Registry.MustRegister(&queueCollector{stats: stats})
}

var (
	messagesDesc = prometheus.NewDesc("engram_messages", "Stored conversation messages by extraction status.", []string{"status"}, nil)
	pendingDesc  = prometheus.NewDesc("engram_messages_pending", "User messages waiting for extraction (PENDING).", nil, nil)
	oldestDesc   = prometheus.NewDesc("engram_messages_oldest_pending_age_seconds", "Age of the oldest PENDING message; 0 when none.", nil, nil)
)

type queueCollector struct {
	stats func(ctx context.Context, now time.Time) (ports.MessageStats, error)
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- messagesDesc
	ch <- pendingDesc
	ch <- oldestDesc
}

// Collect reads the stats with a short timeout; on failure it reports -1, which
// dashboards show as unknown rather than a plausible 0.
func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	now := time.Now()
	st, err := c.stats(ctx, now)
	if err != nil {
		for _, s := range conversation.Statuses {
			ch <- prometheus.MustNewConstMetric(messagesDesc, prometheus.GaugeValue, -1, string(s))
		}
		ch <- prometheus.MustNewConstMetric(pendingDesc, prometheus.GaugeValue, -1)
		ch <- prometheus.MustNewConstMetric(oldestDesc, prometheus.GaugeValue, -1)
		return
	}
	for _, s := range conversation.Statuses {
		ch <- prometheus.MustNewConstMetric(messagesDesc, prometheus.GaugeValue, float64(st.ByStatus[s]), string(s))
	}
	ch <- prometheus.MustNewConstMetric(pendingDesc, prometheus.GaugeValue, float64(st.ByStatus[conversation.StatusPending]))
	age := 0.0
	if !st.OldestPending.IsZero() {
		age = max(now.Sub(st.OldestPending).Seconds(), 0)
	}
	ch <- prometheus.MustNewConstMetric(oldestDesc, prometheus.GaugeValue, age)
}

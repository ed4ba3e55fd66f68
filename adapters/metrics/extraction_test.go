package metrics_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"engram/adapters/metrics"
	"engram/app/extraction"
	"engram/domain/conversation"
	"engram/ports"
)

// value finds one sample by name and label values (name=value pairs).
func value(t *testing.T, m *metrics.Metrics, name string, labels ...string) float64 {
	t.Helper()
	families, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, s := range f.GetMetric() {
			if matches(s, labels) {
				switch {
				case s.Counter != nil:
					return s.Counter.GetValue()
				case s.Gauge != nil:
					return s.Gauge.GetValue()
				case s.Histogram != nil:
					return float64(s.Histogram.GetSampleCount())
				}
			}
		}
	}
	t.Fatalf("no sample %s%v", name, labels)
	return 0
}

func matches(s *dto.Metric, labels []string) bool {
	want := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		want[labels[i]] = labels[i+1]
	}
	n := 0
	for _, l := range s.GetLabel() {
		if v, ok := want[l.GetName()]; ok {
			if v != l.GetValue() {
				return false
			}
			n++
		}
	}
	return n == len(want)
}

type badOutputErr struct{}

func (badOutputErr) Error() string   { return "llm: extract: unusable model output" }
func (badOutputErr) BadOutput() bool { return true }

func TestExtraction_countsOutcomesSkipsCallsAndTokens(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	x := m.Extraction()
	x.Processed(extraction.Report{
		Messages:        []conversation.Message{{Status: conversation.StatusProcessed}, {Status: conversation.StatusSkipped}},
		Skipped:         map[string]int{"greeting": 1},
		Dropped:         map[string]int{"noise_key": 2, "instruction_like:override": 1},
		InstructionLike: map[string]int{"instruction_like:override": 1},
		Calls: []extraction.Call{
			{Stage: extraction.StageExtract, Usage: ports.LLMUsage{Calls: 2, PromptTokens: 700, CompletionTokens: 40}},
			{Stage: extraction.StageRefine, Fallback: true},
		},
		Written: 1, RoutedToProfile: 2, Duration: 3 * time.Millisecond,
	})
	x.Processed(extraction.Report{
		Messages: []conversation.Message{{Status: conversation.StatusFailed}},
		Calls:    []extraction.Call{{Stage: extraction.StageExtract, Usage: ports.LLMUsage{Calls: 1}, Err: fmt.Errorf("extract: %w", badOutputErr{})}},
		Err:      errors.New("extract: bad"),
	})
	checks := []struct {
		name   string
		labels []string
		want   float64
	}{
		{"engram_extraction_messages_total", []string{"status", "PROCESSED"}, 1},
		{"engram_extraction_messages_total", []string{"status", "FAILED"}, 1},
		{"engram_extraction_skipped_messages_total", []string{"reason", "greeting"}, 1},
		{"engram_extraction_dropped_candidates_total", []string{"reason", "noise_key"}, 2},
		{"engram_extraction_dropped_candidates_total", []string{"reason", "instruction_like:override"}, 1},
		{"engram_extraction_instruction_like_messages_total", []string{"reason", "instruction_like:override"}, 1},
		{"engram_llm_calls_total", []string{"stage", "extract", "outcome", "ok"}, 1},
		{"engram_llm_calls_total", []string{"stage", "extract", "outcome", "bad_output"}, 1},
		{"engram_llm_calls_total", []string{"stage", "refine", "outcome", "ok"}, 0},
		{"engram_llm_requests_total", []string{"stage", "extract"}, 3},
		{"engram_llm_tokens_total", []string{"stage", "extract", "kind", "prompt"}, 700},
		{"engram_extraction_duration_seconds", []string{"outcome", "ok"}, 1},
		{"engram_extraction_candidates_total", []string{"fate", "written"}, 1},
		{"engram_extraction_candidates_total", []string{"fate", "routed_to_profile"}, 2},
	}
	for _, c := range checks {
		if got := value(t, m, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
}

func TestMessageQueue_readsTheStoreAtScrapeTime(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	oldest := time.Now().Add(-90 * time.Second)
	fail := false
	m.MessageQueue(func(context.Context, time.Time) (ports.MessageStats, error) {
		if fail {
			return ports.MessageStats{}, errors.New("database down")
		}
		return ports.MessageStats{ByStatus: map[conversation.Status]int64{conversation.StatusPending: 4, conversation.StatusProcessed: 10},
			OldestPending: oldest}, nil
	})
	if got := value(t, m, "engram_messages", "status", "PROCESSED"); got != 10 {
		t.Errorf("processed = %v", got)
	}
	if got := value(t, m, "engram_messages_pending"); got != 4 {
		t.Errorf("pending = %v", got)
	}
	if got := value(t, m, "engram_messages_oldest_pending_age_seconds"); got < 89 || got > 120 {
		t.Errorf("oldest age = %v, want about 90", got)
	}
	fail = true
	if got := value(t, m, "engram_messages_pending"); got != -1 {
		t.Errorf("pending while the store fails = %v, want -1", got)
	}
}

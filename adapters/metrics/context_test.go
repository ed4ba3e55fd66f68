package metrics_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"engram/adapters/metrics"
	"engram/app/contextbuild"
	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/domain/promptctx"
)

type stubContext struct {
	res contextbuild.Result
	err error
}

func (s *stubContext) Build(context.Context, contextbuild.Request) (contextbuild.Result, error) {
	return s.res, s.err
}
func (s *stubContext) Trace(context.Context, string, string) (promptctx.Trace, error) {
	return promptctx.Trace{}, nil
}
func (s *stubContext) LatestTrace(context.Context, memory.Scope) (promptctx.Trace, error) {
	return promptctx.Trace{}, nil
}
func (s *stubContext) ListTraces(context.Context, memory.Scope, string, int) ([]promptctx.Trace, error) {
	return nil, nil
}

func TestContextCalls_stagesCharsItemsDropsOutcomes(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	stub := &stubContext{res: contextbuild.Result{Prompt: "[跨会话记忆]…", InjectedChars: 1500,
		Timings: map[string]time.Duration{contextbuild.StageTotal: 3 * time.Millisecond, contextbuild.StageMemories: time.Millisecond},
		Trace: promptctx.Trace{
			SourceCount: map[promptctx.Section]int{promptctx.Memories: 2, promptctx.Recent: 4},
			RawHits: []promptctx.RawHit{{Kept: true}, {Reason: promptctx.ReasonBudget}, {Reason: promptctx.ReasonInstructionLike},
				{Reason: promptctx.ReasonBudget}},
			Omitted: map[string]int{"below_min_score": 40},
		}}}
	c := m.ContextCalls(stub)
	ctx := context.Background()
	_, _ = c.Build(ctx, contextbuild.Request{})
	stub.res.Prompt = ""
	_, _ = c.Build(ctx, contextbuild.Request{})
	stub.err = invalid.Field("query", "must not be empty")
	_, _ = c.Build(ctx, contextbuild.Request{})
	stub.err = errors.New("sql down")
	_, _ = c.Build(ctx, contextbuild.Request{})
	for _, tc := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"engram_context_duration_seconds", []string{"stage", "total"}, 2},
		{"engram_context_duration_seconds", []string{"stage", "memories"}, 2},
		{"engram_context_duration_seconds", []string{"stage", "pack"}, 0},
		{"engram_context_injected_chars", nil, 2},
		{"engram_context_items_total", []string{"section", "memories"}, 4},
		{"engram_context_items_total", []string{"section", "recent"}, 8},
		{"engram_context_items_total", []string{"section", "external"}, 0},
		{"engram_context_dropped_total", []string{"reason", "budget"}, 4},
		{"engram_context_dropped_total", []string{"reason", "instruction_like"}, 2},
		{"engram_context_dropped_total", []string{"reason", "below_min_score"}, 80},
		{"engram_context_calls_total", []string{"outcome", "injected"}, 1},
		{"engram_context_calls_total", []string{"outcome", "empty"}, 1},
		{"engram_context_calls_total", []string{"outcome", "invalid"}, 1},
		{"engram_context_calls_total", []string{"outcome", "failed"}, 1},
	} {
		if got := value(t, m, tc.name, tc.labels...); got != tc.want {
			t.Errorf("%s%v = %v, want %v", tc.name, tc.labels, got, tc.want)
		}
	}
}

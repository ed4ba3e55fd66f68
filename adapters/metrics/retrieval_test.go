package metrics_test

import (
	"context"
	"errors"
	"testing"

	"engram/adapters/metrics"
	"engram/app/retrieval"
	"engram/domain/invalid"
)

type stubSearcher struct {
	res retrieval.Result
	err error
}

func (s *stubSearcher) Search(context.Context, retrieval.Search) (retrieval.Result, error) {
	return s.res, s.err
}

func TestSearch_latencyByModeFallbacksByReasonAndBreakerState(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	stub := &stubSearcher{}
	state := retrieval.BreakerClosed
	s := m.Search(stub, func() retrieval.BreakerState { return state })
	ctx := context.Background()

	stub.res = retrieval.Result{ModeUsed: retrieval.ModeAuto}
	_, _ = s.Search(ctx, retrieval.Search{})
	stub.res = retrieval.Result{ModeUsed: retrieval.ModeLexical, FallbackReason: retrieval.FallbackVectorTimeout}
	_, _ = s.Search(ctx, retrieval.Search{})
	_, _ = s.Search(ctx, retrieval.Search{})
	stub.err = invalid.Field("query", "must not be empty")
	_, _ = s.Search(ctx, retrieval.Search{})
	stub.err = errors.New("database gone")
	_, _ = s.Search(ctx, retrieval.Search{})

	if got := value(t, m, "engram_search_duration_seconds", "mode", "auto"); got != 1 {
		t.Errorf("auto searches timed = %v, want 1", got)
	}
	if got := value(t, m, "engram_search_duration_seconds", "mode", "lexical"); got != 2 {
		t.Errorf("lexical searches timed = %v, want 2", got)
	}
	if got := value(t, m, "engram_search_fallbacks_total", "reason", "vector_timeout"); got != 2 {
		t.Errorf("timeouts = %v, want 2", got)
	}
	if got := value(t, m, "engram_search_fallbacks_total", "reason", "breaker_open"); got != 0 {
		t.Errorf("breaker_open = %v, want 0 (registered, never counted)", got)
	}
	if got := value(t, m, "engram_search_errors_total"); got != 1 {
		t.Errorf("errors = %v, want 1 (the invalid request is not one)", got)
	}
	if got := value(t, m, "engram_vector_breaker_state"); got != 0 {
		t.Errorf("breaker state = %v, want 0 (closed)", got)
	}
	state = retrieval.BreakerOpen
	if got := value(t, m, "engram_vector_breaker_state"); got != 1 {
		t.Errorf("breaker state = %v, want 1 (open)", got)
	}
}

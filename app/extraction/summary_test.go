package extraction_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"engram/adapters/rules"
	"engram/domain/candidate"
	"engram/domain/memory"
	"engram/ports"
)

// summaryExtractor keeps the summary each call was given.
type summaryExtractor struct {
	ports.Extractor
	mu   sync.Mutex
	seen map[string]string // conversation → summary
}

func (s *summaryExtractor) Extract(ctx context.Context, in ports.ExtractionInput) ([]candidate.Candidate, ports.LLMUsage, error) {
	s.mu.Lock()
	s.seen[in.ConversationID] = in.Summary
	s.mu.Unlock()
	return s.Extractor.Extract(ctx, in)
}

type sessionSummaries map[string]string

func (s sessionSummaries) ConversationSummary(_ context.Context, _ memory.Scope, conversationID string) (string, error) {
	return s[conversationID], nil
}

// A conversation that is a session (record_exchange) is extracted with its
// session's summary; another conversation with none.
func TestExtract_aSessionsSummaryReachesTheExtractor(t *testing.T) {
	t.Parallel()
	x := &summaryExtractor{Extractor: rules.NewExtractor(rules.ExtractorOptions{}), seen: map[string]string{}}
	e := newEnv(t, envOptions{extractor: x, summaries: sessionSummaries{"s1": "用户在准备季度汇报。"}})
	e.post("s1", user("u1", "请记住我叫李雷。"))
	e.post("c2", user("u2", "Remember that I live in Wuhan."))
	e.clock.Advance(debounce + time.Second)
	e.tick()
	if got, ok := x.seen["s1"]; !ok || got != "用户在准备季度汇报。" {
		t.Errorf("the session's turn was extracted with summary %q (called %v)", got, ok)
	}
	if got, ok := x.seen["c2"]; !ok || got != "" {
		t.Errorf("a plain conversation: summary %q (called %v)", got, ok)
	}
}

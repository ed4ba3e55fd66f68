package sessions_test

import (
	"context"
	"fmt"
	"testing"

	"engram/app/sessions"
	"engram/domain/session"
)

// The summary of the conversation a session's turns were written as is the
// session's; a conversation that is no session has none.
func TestSummaries_ofTheSessionAConversationIs(t *testing.T) {
	t.Parallel()
	policy := session.Policy{Threshold: 4, Keep: 2}
	f := newFixture(t, policy)
	ctx := context.Background()
	summaries := sessions.Summaries{Store: f.store}
	f.record(t, "s1", "flow", "x1", "u1")
	if got, err := summaries.ConversationSummary(ctx, scope, "s1"); err != nil || got != "" {
		t.Errorf("before a fold: %q %v", got, err)
	}
	for i := 2; i <= 3; i++ {
		f.record(t, "s1", "flow", fmt.Sprintf("x%d", i), fmt.Sprintf("u%d", i))
	}
	if n, err := newFolder(f, &joiner{}, nil, nil, policy).FoldDue(ctx); err != nil || n != 1 {
		t.Fatalf("fold: %d %v", n, err)
	}
	if got, err := summaries.ConversationSummary(ctx, scope, "s1"); err != nil || got != "u1|answer to u1|u2|answer to u2" {
		t.Errorf("after a fold: %q %v", got, err)
	}
	if got, err := summaries.ConversationSummary(ctx, scope, "c-other"); err != nil || got != "" {
		t.Errorf("no such session: %q %v", got, err)
	}
}

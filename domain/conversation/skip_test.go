package conversation_test

import (
	"strings"
	"testing"
	"time"

	"engram/domain/conversation"
)

func TestIsSkipReason(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		want   bool
	}{
		{conversation.SkipNoFact, true},
		{conversation.SkipDuplicate, true},
		{conversation.SkipSecret, true},
		{conversation.SkipDeferred, true},
		{"instruction_like:override", true},
		{conversation.SkipNotFromUser, true},
		{"greeting", true},
		{"", false},
		{"over_write_limit", false},
		{"no_facts", false},
	}
	for _, tt := range tests {
		if got := conversation.IsSkipReason(tt.reason); got != tt.want {
			t.Errorf("IsSkipReason(%q) = %v, want %v", tt.reason, got, tt.want)
		}
	}
	seen := map[string]bool{}
	for _, r := range conversation.SkipReasons {
		if seen[r] || strings.Contains(r, ":") {
			t.Errorf("vocabulary entry %q repeated or with a detail", r)
		}
		seen[r] = true
	}
}

func TestCarried_staysPendingDueAtOnceUntilMaxCarries(t *testing.T) {
	t.Parallel()
	m, err := conversation.New(scope, conversation.Input{ConversationID: "c1", Role: "user", Content: "I speak French and German."}, "01SEQ", now, 12*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	later := now.Add(time.Minute)
	got := m.Carried(1, 1, later)
	if got.Status != conversation.StatusPending || got.SkipReason != conversation.SkipDeferred || !got.ProcessAfter.Equal(later) ||
		got.Attempts != 1 || !strings.Contains(got.Error, "write limit of 1") {
		t.Errorf("first carry %+v, want PENDING deferred, due now, one attempt, the count in error", got)
	}
	for got.Status == conversation.StatusPending {
		if got.Attempts > conversation.MaxCarries {
			t.Fatalf("still carried after %d runs", got.Attempts)
		}
		got = got.Carried(1, 1, later)
	}
	if got.Status != conversation.StatusProcessed || got.Attempts != conversation.MaxCarries || got.SkipReason != conversation.SkipDeferred ||
		!got.ProcessAfter.IsZero() {
		t.Errorf("after %d carries %+v, want PROCESSED, deferred kept as the reason, nothing planned", got.Attempts, got)
	}
}

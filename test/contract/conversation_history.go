package contract

import (
	"context"
	"testing"
	"time"

	"engram/domain/conversation"
	"engram/domain/memory"
)

// ConversationHistory is what a profile refresh reads of a user's conversations
// (app/profiles.ConversationHistory), served by the message stores.
type ConversationHistory interface {
	MessageStore
	ConversationSummary(ctx context.Context, scope memory.Scope) (int, time.Time, error)
	RecentUserMessages(ctx context.Context, scope memory.Scope, since time.Time, limit int) ([]conversation.Message, error)
}

// RunConversationHistory is the contract of the message stores' profile sources:
// conversations of every role are counted, the last is the newest message said,
// and recent messages are the user's own, newest first, since a time, bounded.
func RunConversationHistory(t *testing.T, open func(t *testing.T) ConversationHistory) {
	t.Helper()
	t.Run("summary and recent user messages", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		scope := memory.Scope{Tenant: "acme", User: "dev"}
		n, last, err := store.ConversationSummary(ctx, scope)
		if err != nil || n != 0 || !last.IsZero() {
			t.Fatalf("empty: %d %v %v", n, last, err)
		}
		base := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
		var msgs []conversation.Message
		for _, in := range []conversation.Input{
			{ConversationID: "c1", MessageID: "m1", Role: "user", Content: "one", CreatedAt: base},
			{ConversationID: "c1", MessageID: "m2", Role: "assistant", Content: "two", CreatedAt: base.Add(time.Minute)},
			{ConversationID: "c2", MessageID: "m3", Role: "user", Content: "three", CreatedAt: base.Add(2 * time.Minute)},
			{ConversationID: "c3", MessageID: "m4", Role: "assistant", Content: "four", CreatedAt: base.Add(3 * time.Minute)},
		} {
			m, err := conversation.New(scope, in, memNewID(), base.Add(time.Hour), time.Second)
			if err != nil {
				t.Fatal(err)
			}
			msgs = append(msgs, m)
		}
		if _, err := store.Ingest(ctx, scope, msgs); err != nil {
			t.Fatal(err)
		}
		n, last, err = store.ConversationSummary(ctx, scope)
		if err != nil || n != 3 || !last.Equal(base.Add(3*time.Minute)) {
			t.Errorf("summary: %d conversations, last %v, err %v", n, last, err)
		}
		recent, err := store.RecentUserMessages(ctx, scope, base.Add(time.Second), 10)
		if err != nil || len(recent) != 1 || recent[0].ID != "m3" {
			t.Errorf("since 09:00:01: %v %v", recent, err)
		}
		recent, _ = store.RecentUserMessages(ctx, scope, base, 1)
		if len(recent) != 1 || recent[0].ID != "m3" {
			t.Errorf("limit 1, newest first: %v", recent)
		}
		recent, _ = store.RecentUserMessages(ctx, scope, base, 10)
		if len(recent) != 2 || recent[1].ID != "m1" {
			t.Errorf("both user messages: %v", recent)
		}
		if n, _, _ := store.ConversationSummary(ctx, memory.Scope{Tenant: "globex", User: "dev"}); n != 0 {
			t.Errorf("another tenant: %d", n)
		}
	})
}

package conversation_test

import (
	"testing"
	"time"

	"engram/domain/conversation"
	"engram/domain/retry"
)

func TestBatchingDue_theFirstBoundReachedDecides(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	const debounce = 12 * time.Second
	// A conversation whose user writes every 5 s: each message pushes the debounce.
	chatty := func(n int) conversation.Waiting {
		newest := t0.Add(time.Duration(n-1) * 5 * time.Second)
		return conversation.Waiting{Count: n, OldestReceived: t0, NewestReceived: newest, Debounced: newest.Add(debounce)}
	}
	tests := []struct {
		name string
		b    conversation.Batching
		w    conversation.Waiting
		want time.Time
	}{
		{"no bounds: the debounce of the newest", conversation.Batching{}, chatty(20), t0.Add(95*time.Second + debounce)},
		{"a quiet conversation is due after its debounce", conversation.Batching{MaxMessages: 20, MaxWait: time.Minute}, chatty(1), t0.Add(debounce)},
		{"the wait is capped after the oldest arrived", conversation.Batching{MaxWait: time.Minute}, chatty(13), t0.Add(time.Minute)},
		{"the cap does not delay an earlier debounce", conversation.Batching{MaxWait: time.Minute}, chatty(2), t0.Add(5*time.Second + debounce)},
		{"enough messages are due at once", conversation.Batching{MaxMessages: 4, MaxWait: time.Minute}, chatty(4), t0.Add(15 * time.Second)},
		{"fewer messages wait for the debounce", conversation.Batching{MaxMessages: 4}, chatty(3), t0.Add(10*time.Second + debounce)},
		{"the cap already passed: due at once", conversation.Batching{MaxWait: 30 * time.Second},
			conversation.Waiting{Count: 2, OldestReceived: t0, NewestReceived: t0.Add(time.Hour), Debounced: t0.Add(time.Hour + debounce)}, t0.Add(30 * time.Second)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.b.Due(tt.w); !got.Equal(tt.want) {
				t.Errorf("Due = %s, want %s", got.Format(time.TimeOnly), tt.want.Format(time.TimeOnly))
			}
		})
	}
}

func TestDeferred_waitsWithoutUsingAnAttempt(t *testing.T) {
	t.Parallel()
	m, err := conversation.New(scope, conversation.Input{ConversationID: "c1", Role: "user", Content: "I like tea."}, "01SEQ", now, 12*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	m = m.Failed("llm: down", now, retry.Policy{}) // one attempt used
	until := now.Add(40 * time.Second)
	got := m.Deferred(until, "waiting: over budget")
	if got.Status != conversation.StatusPending || got.Attempts != 1 || !got.ProcessAfter.Equal(until) ||
		got.Error != "waiting: over budget" || got.ProcessAfter.Location() != time.UTC || got.SkipReason != conversation.SkipDeferred {
		t.Errorf("%+v", got)
	}
}

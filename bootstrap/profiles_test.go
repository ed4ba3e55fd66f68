package bootstrap

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"engram/adapters/textanalysis"
	"engram/app/extraction"
	"engram/app/profiles"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/test/fakeclock"
	"engram/test/teststore"
)

// finishQueue stands in for the message store: it stores n outcomes.
type finishQueue struct {
	extraction.Queue
	stored int
}

func (q *finishQueue) Finish(context.Context, string, []conversation.Message) (int, error) {
	return q.stored, nil
}

func TestProfileMarkingQueue_marksEachUserOfFinishedMessages(t *testing.T) {
	t.Parallel()
	clk := fakeclock.New(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	store := teststore.New(t).Profiles
	svc := profiles.New(profiles.Deps{Profiles: store, Refreshes: store, Analyzer: textanalysis.New(textanalysis.Options{}), Clock: clk},
		profiles.Options{RefreshDebounce: time.Minute})
	a, b := memory.Scope{Tenant: "acme", User: "a"}, memory.Scope{Tenant: "acme", User: "b"}
	msgs := []conversation.Message{{ID: "1", Scope: a}, {ID: "2", Scope: a}, {ID: "3", Scope: b}}
	ctx := context.Background()

	inner := &finishQueue{stored: 0}
	q := profileMarkingQueue{Queue: inner, profiles: svc, log: slog.New(slog.DiscardHandler)}
	if _, err := q.Finish(ctx, "w", msgs); err != nil {
		t.Fatal(err)
	}
	if got, _ := store.ClaimStaleProfiles(ctx, "w", clk.Now().Add(time.Hour), time.Minute, 10); len(got) != 0 {
		t.Fatalf("nothing was stored, yet %v were marked", got)
	}
	inner.stored = 3
	if n, err := q.Finish(ctx, "w", msgs); n != 3 || err != nil {
		t.Fatalf("finish: %d %v", n, err)
	}
	got, err := store.ClaimStaleProfiles(ctx, "w", clk.Now().Add(time.Minute), time.Minute, 10)
	if err != nil || len(got) != 2 {
		t.Fatalf("marked %v (%v), want a and b once each", got, err)
	}
}

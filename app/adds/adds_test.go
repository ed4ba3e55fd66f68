package adds_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"engram/adapters/sqlstore"
	"engram/adapters/ulids"
	"engram/app/adds"
	"engram/domain/addevent"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
	"engram/test/fakeclock"
	"engram/test/teststore"
)

// An add stays PENDING while its messages wait, and SUCCEEDED with the memories
// their extraction changed once they are processed; the outcome is stored.
func TestAdd_pendingThenSucceededWithWhatItWrote(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	stores := teststore.New(t)
	clk := fakeclock.New(time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC))
	ids := ulids.New()
	events := sqlstore.NewAddEventStore(stores.DB)
	svc := adds.New(events, stores.Messages, clk, ids)
	scope := memory.Scope{Tenant: "acme", User: "alice"}

	msg, err := conversation.New(scope, conversation.Input{ConversationID: "run-1", MessageID: "m1", Role: "user",
		Content: "I am vegetarian."}, ids.New(), clk.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stores.Messages.Ingest(ctx, scope, []conversation.Message{msg}); err != nil {
		t.Fatal(err)
	}
	rec, err := svc.Begin(ctx, adds.Begin{Scope: scope, ConversationID: "run-1", MessageIDs: []string{"m1"}})
	if err != nil {
		t.Fatalf("begin: %v", err)
	}
	got, err := svc.Get(ctx, adds.Get{Tenant: "acme", ID: rec.ID})
	if err != nil || got.Status != addevent.StatusPending {
		t.Fatalf("before extraction: %+v, %v; want PENDING", got, err)
	}

	// What a worker does: claim, write a memory from the message, finish it.
	claimed, err := stores.Messages.ClaimDue(ctx, ports.Claim{Worker: "w", Now: clk.Now(), Lease: time.Minute, MaxConversations: 1})
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim: %v, %v", claimed, err)
	}
	src := memory.Source{Channel: memory.ChannelExtraction, ConversationID: "run-1", MessageID: "m1"}
	d, _ := memory.ParseDraft(memory.DraftInput{Type: "fact", Content: "Is vegetarian"}, src)
	written, err := stores.Memories.Update(ctx, scope, memory.MustParseKey("diet"), func(*memory.Memory) (memory.Change, error) {
		m, err := memory.New(ids.New(), scope, memory.MustParseKey("diet"), d, memory.Policy{}, clk.Now())
		return memory.Change{Memory: m, Event: memory.NewEvent(ids.New(), memory.OpAdd, nil, m)}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Second)
	if _, err := stores.Messages.Finish(ctx, "w", []conversation.Message{claimed[0].Processed(clk.Now())}); err != nil {
		t.Fatal(err)
	}

	got, err = svc.Get(ctx, adds.Get{Tenant: "acme", ID: rec.ID})
	if err != nil || got.Status != addevent.StatusSucceeded || len(got.Results) != 1 ||
		got.Results[0].MemoryID != written.ID() || got.Results[0].Change != addevent.ChangeAdd || got.Results[0].Memory.Content != "Is vegetarian" {
		t.Fatalf("after extraction: %+v, %v; want SUCCEEDED with the ADD of diet", got, err)
	}
	stored, err := events.Get(ctx, "acme", rec.ID)
	if err != nil || stored.Status != addevent.StatusSucceeded {
		t.Errorf("stored add: %+v, %v; want the outcome stored", stored, err)
	}
	list, err := svc.List(ctx, adds.List{Tenant: "acme"})
	if err != nil || len(list) != 1 || list[0].ID != rec.ID {
		t.Errorf("list: %+v, %v", list, err)
	}
	if _, err := svc.Get(ctx, adds.Get{Tenant: "globex", ID: rec.ID}); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("another tenant: %v, want not found", err)
	}
	done, err := svc.Done(ctx, adds.Done{Scope: scope, Results: []addevent.Result{{MemoryID: written.ID(), Change: addevent.ChangeAdd, Memory: written.State()}}})
	if err != nil || done.Status != addevent.StatusSucceeded {
		t.Errorf("done: %+v, %v", done, err)
	}
}

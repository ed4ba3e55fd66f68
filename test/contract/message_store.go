package contract

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"engram/app/extraction"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/domain/retry"
	"engram/ports"
)

// MessageStore is a message store as the suite drives it: the message log, the
// extraction worker's queue and context reader, and the counts its metrics show.
type MessageStore interface {
	ports.MessageLog
	extraction.Queue
	extraction.ContextReader
	Stats(ctx context.Context, now time.Time) (ports.MessageStats, error)
}

// RunMessageStore is the contract every message store must pass. open
// returns an empty message store and the memory store whose events it reports
// (CausedEvents); each case opens its own.
//
// Beyond the port's comments:
//   - Times come back in UTC to the microsecond; Seq and ID round-trip.
//   - A repeat of a stored id returns it unchanged even after it was processed; a
//     repeat inside one batch is stored once.
//   - Only new user messages push a conversation's debounce; claimed messages and
//     other conversations keep theirs.
//   - The poll (Claim without Recover) sees only unclaimed PENDING messages; lapsed
//     claims and FAILED messages past their backoff come back through Recover;
//     FAILED messages without a ProcessAfter never come back.
//   - Concurrent claimers never get the same message.
func RunMessageStore(t *testing.T, open func(t *testing.T) (MessageStore, ports.MemoryStore)) {
	t.Helper()
	const debounce = 12 * time.Second

	t.Run("ingest then get returns every field in UTC to the microsecond", func(t *testing.T) {
		t.Parallel()
		store, _ := open(t)
		ctx := memTestContext(t)
		received := time.Date(2026, 11, 30, 17, 4, 5, 123456789, time.FixedZone("CST", 8*3600))
		said := time.Date(2026, 11, 30, 9, 3, 0, 999999999, time.UTC)
		m := msgMust(t, conversation.Input{ConversationID: "c-1", MessageID: "m-1", Role: "user", Name: "小王",
			Content: "记住，以后都用中文回复我。", CreatedAt: said}, received, debounce)
		res := msgIngest(t, ctx, store, m)
		if !res[0].Created {
			t.Fatal("a new message was not created")
		}
		want := m
		want.CreatedAt = said.Truncate(time.Microsecond)
		want.ReceivedAt = received.UTC().Truncate(time.Microsecond)
		want.ProcessAfter = received.UTC().Add(debounce).Truncate(time.Microsecond)
		msgExpect(t, "returned by Ingest", res[0].Message, want)
		got, err := store.Message(ctx, memScope1, "m-1")
		if err != nil {
			t.Fatalf("get: %v", err)
		}
		msgExpect(t, "returned by Message", got, want)
		if got.CreatedAt.Location() != time.UTC || got.ProcessAfter.Location() != time.UTC {
			t.Error("times are not in UTC")
		}

		a := msgMust(t, conversation.Input{ConversationID: "c-1", Role: "assistant", Content: "好的，以后用中文。"}, memNow, debounce)
		msgIngest(t, ctx, store, a)
		got, err = store.Message(ctx, memScope1, a.ID)
		if err != nil {
			t.Fatalf("get assistant message by its generated id: %v", err)
		}
		if got.Status != conversation.StatusSkipped || got.SkipReason != conversation.SkipNotFromUser ||
			!got.ProcessAfter.IsZero() || got.ID != a.Seq {
			t.Errorf("assistant message stored as %+v", got)
		}
	})

	t.Run("a repeated id returns the stored message without resetting it", func(t *testing.T) {
		t.Parallel()
		store, _ := open(t)
		ctx := memTestContext(t)
		first := msgMust(t, msgUser("c1", "m1", "I am allergic to peanuts."), memNow, debounce)
		msgIngest(t, ctx, store, first)
		claimed := msgClaim(t, ctx, store, ports.Claim{Worker: "w1", Now: memNow.Add(time.Minute), Lease: time.Minute, MaxConversations: 10})
		if len(claimed) != 1 {
			t.Fatalf("claimed %d messages, want 1", len(claimed))
		}
		done := claimed[0].Processed(memNow.Add(time.Minute))
		if n, err := store.Finish(ctx, "w1", []conversation.Message{done}); err != nil || n != 1 {
			t.Fatalf("finish = %d, %v", n, err)
		}

		again := msgMust(t, msgUser("c1", "m1", "I am allergic to peanuts."), memNow.Add(time.Hour), debounce)
		res := msgIngest(t, ctx, store, again)
		if res[0].Created {
			t.Fatal("the repeat was created again")
		}
		if res[0].Message.Status != conversation.StatusProcessed || res[0].Message.Seq != first.Seq ||
			res[0].Message.Attempts != 1 || !res[0].Message.ProcessAfter.IsZero() {
			t.Errorf("repeat returned %+v, want the processed original", res[0].Message)
		}
		if got := msgClaim(t, ctx, store, ports.Claim{Worker: "w1", Now: memNow.Add(2 * time.Hour), Lease: time.Minute, MaxConversations: 10, Recover: true}); len(got) != 0 {
			t.Errorf("the repeat made the message due again: %+v", got)
		}
	})

	t.Run("a repeated id with other content is a conflict and the batch stores nothing", func(t *testing.T) {
		t.Parallel()
		store, _ := open(t)
		ctx := memTestContext(t)
		msgIngest(t, ctx, store, msgMust(t, msgUser("c1", "m1", "I like jazz."), memNow, debounce))
		fresh := msgMust(t, msgUser("c1", "m2", "I live in Berlin."), memNow, debounce)
		changed := msgMust(t, msgUser("c1", "m1", "I like blues."), memNow, debounce)
		_, err := store.Ingest(ctx, memScope1, []conversation.Message{fresh, changed})
		var conflict *ports.MessageConflictError
		if !errors.As(err, &conflict) || conflict.MessageID != "m1" || !errors.Is(err, ports.ErrConflict) {
			t.Fatalf("err = %v, want a MessageConflictError for m1 wrapping ErrConflict", err)
		}
		if _, err := store.Message(ctx, memScope1, "m2"); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("the batch's other message was stored: %v", err)
		}
		other := msgMust(t, msgUser("c2", "m1", "I like jazz."), memNow, debounce)
		if _, err := store.Ingest(ctx, memScope1, []conversation.Message{other}); !errors.Is(err, ports.ErrConflict) {
			t.Errorf("same content in another conversation: err = %v, want a conflict", err)
		}
	})

	t.Run("a repeated id inside one batch is stored once", func(t *testing.T) {
		t.Parallel()
		store, _ := open(t)
		ctx := memTestContext(t)
		a := msgMust(t, msgUser("c1", "m1", "I like jazz."), memNow, debounce)
		b := msgMust(t, msgUser("c1", "m1", "I like jazz."), memNow, debounce)
		res, err := store.Ingest(ctx, memScope1, []conversation.Message{a, b})
		if err != nil {
			t.Fatalf("ingest: %v", err)
		}
		if !res[0].Created || res[1].Created || res[1].Message.Seq != a.Seq {
			t.Errorf("results %+v", res)
		}
		claimed := msgClaim(t, ctx, store, ports.Claim{Worker: "w", Now: memNow.Add(time.Hour), Lease: time.Minute, MaxConversations: 5})
		if len(claimed) != 1 {
			t.Errorf("%d messages stored, want 1", len(claimed))
		}
	})

	t.Run("message ids are per user and another scope's message is not found", func(t *testing.T) {
		t.Parallel()
		store, _ := open(t)
		ctx := memTestContext(t)
		other := memory.Scope{Tenant: "t1", User: "u2"}
		msgIngest(t, ctx, store, msgMust(t, msgUser("c1", "m1", "I like jazz."), memNow, debounce))
		m2, err := conversation.New(other, msgUser("c1", "m1", "I like tea."), memNewID(), memNow, debounce)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.Ingest(ctx, other, []conversation.Message{m2}); err != nil {
			t.Fatalf("the same id for another user: %v", err)
		}
		if _, err := store.Message(ctx, memory.Scope{Tenant: "t2", User: "u1"}, "m1"); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("another tenant's message: %v, want not found", err)
		}
		got, err := store.Message(ctx, other, "m1")
		if err != nil || got.Content != "I like tea." {
			t.Errorf("u2's m1 = %+v, %v", got, err)
		}
	})

	t.Run("a later user message pushes the conversation's pending messages", func(t *testing.T) {
		t.Parallel()
		store, _ := open(t)
		ctx := memTestContext(t)
		msgIngest(t, ctx, store,
			msgMust(t, msgUser("c1", "m1", "I like jazz."), memNow, debounce),
			msgMust(t, msgUser("c2", "o1", "I like tea."), memNow, debounce))
		msgIngest(t, ctx, store, msgMust(t, conversation.Input{ConversationID: "c1", MessageID: "a1", Role: "assistant", Content: "Nice!"}, memNow.Add(3*time.Second), debounce))
		if got := msgGet(t, ctx, store, "m1"); !got.ProcessAfter.Equal(memNow.Add(debounce)) {
			t.Errorf("an assistant message moved the debounce to %v", got.ProcessAfter)
		}
		msgIngest(t, ctx, store, msgMust(t, msgUser("c1", "m2", "And blues."), memNow.Add(5*time.Second), debounce))
		want := memNow.Add(5*time.Second + debounce)
		if got := msgGet(t, ctx, store, "m1"); !got.ProcessAfter.Equal(want) {
			t.Errorf("m1 due at %v, want %v", got.ProcessAfter, want)
		}
		if got := msgGet(t, ctx, store, "o1"); !got.ProcessAfter.Equal(memNow.Add(debounce)) {
			t.Errorf("another conversation moved to %v", got.ProcessAfter)
		}
		claimed := msgClaim(t, ctx, store, ports.Claim{Worker: "w", Now: memNow.Add(debounce), Lease: time.Minute, MaxConversations: 10})
		if ids := msgIDs(claimed); !slices.Equal(ids, []string{"o1"}) {
			t.Fatalf("claimed %v at the first deadline, want [o1]", ids)
		}
		msgFinish(t, ctx, store, "w", claimed, memNow.Add(debounce))
		claimed = msgClaim(t, ctx, store, ports.Claim{Worker: "w", Now: want, Lease: time.Minute, MaxConversations: 10})
		if ids := msgIDs(claimed); !slices.Equal(ids, []string{"m1", "m2"}) {
			t.Fatalf("claimed %v, want the conversation together [m1 m2]", ids)
		}
		msgIngest(t, ctx, store, msgMust(t, msgUser("c1", "m3", "And soul."), want.Add(time.Second), debounce))
		if got := msgGet(t, ctx, store, "m1"); !got.ProcessAfter.Equal(want) {
			t.Errorf("a claimed message was pushed to %v", got.ProcessAfter)
		}
	})

	t.Run("claims take whole due conversations in order and never twice", func(t *testing.T) {
		t.Parallel()
		store, _ := open(t)
		ctx := memTestContext(t)
		early := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
		b1 := msgMust(t, conversation.Input{ConversationID: "a", MessageID: "b", Role: "user", Content: "second", CreatedAt: early.Add(time.Second)}, memNow, debounce)
		a1 := msgMust(t, conversation.Input{ConversationID: "a", MessageID: "a", Role: "user", Content: "first", CreatedAt: early}, memNow, debounce)
		msgIngest(t, ctx, store, b1, a1)
		msgIngest(t, ctx, store, msgMust(t, msgUser("later", "x", "later"), memNow.Add(time.Minute), debounce))

		claimed := msgClaim(t, ctx, store, ports.Claim{Worker: "w", Now: memNow.Add(debounce), Lease: time.Minute, MaxConversations: 10})
		if ids := msgIDs(claimed); !slices.Equal(ids, []string{"a", "b"}) {
			t.Fatalf("claimed %v, want [a b] in the order they were said", ids)
		}
		if again := msgClaim(t, ctx, store, ports.Claim{Worker: "w2", Now: memNow.Add(debounce), Lease: time.Minute, MaxConversations: 10}); len(again) != 0 {
			t.Errorf("claimed again: %v", msgIDs(again))
		}
		if again := msgClaim(t, ctx, store, ports.Claim{Worker: "w2", Now: memNow.Add(debounce), Lease: time.Minute, MaxConversations: 10, Recover: true}); len(again) != 0 {
			t.Errorf("a live claim was recovered: %v", msgIDs(again))
		}
		claimed = msgClaim(t, ctx, store, ports.Claim{Worker: "w", Now: memNow.Add(time.Hour), Lease: time.Minute, MaxConversations: 10})
		if ids := msgIDs(claimed); !slices.Equal(ids, []string{"x"}) {
			t.Errorf("claimed %v, want [x]", ids)
		}
	})

	t.Run("MaxConversations bounds a claim by conversations, not messages", func(t *testing.T) {
		t.Parallel()
		store, _ := open(t)
		ctx := memTestContext(t)
		// Five users, one conversation of three messages each, in deadline order.
		for i := range 5 {
			scope := memory.Scope{Tenant: "t1", User: fmt.Sprintf("u%d", i)}
			var msgs []conversation.Message
			for j := range 3 {
				msgs = append(msgs, msgMustFor(t, scope, msgUser("c", fmt.Sprintf("m%d-%d", i, j), "hello there"),
					memNow.Add(time.Duration(i)*time.Second), debounce))
			}
			msgIngestFor(t, ctx, store, scope, msgs...)
		}
		claimed := msgClaim(t, ctx, store, ports.Claim{Worker: "w", Now: memNow.Add(time.Hour), Lease: time.Minute, MaxConversations: 2})
		if ids := msgIDs(claimed); !slices.Equal(ids, []string{"m0-0", "m0-1", "m0-2", "m1-0", "m1-1", "m1-2"}) {
			t.Errorf("claimed %v, want the two earliest conversations whole", ids)
		}
		claimed = msgClaim(t, ctx, store, ports.Claim{Worker: "w2", Now: memNow.Add(time.Hour), Lease: time.Minute, MaxConversations: 8})
		if len(claimed) != 9 {
			t.Errorf("a second claim took %d messages, want the other three conversations (9)", len(claimed))
		}
	})

	t.Run("a user has at most one conversation under claim", func(t *testing.T) {
		t.Parallel()
		store, _ := open(t)
		ctx := memTestContext(t)
		other := memory.Scope{Tenant: "t1", User: "u2"}
		msgIngest(t, ctx, store, msgMust(t, msgUser("first", "f1", "I like jazz."), memNow, debounce))
		msgIngest(t, ctx, store, msgMust(t, msgUser("second", "s1", "I like tea."), memNow.Add(time.Second), debounce))
		msgIngestFor(t, ctx, store, other, msgMustFor(t, other, msgUser("elsewhere", "e1", "I like rain."), memNow.Add(2*time.Second), debounce))
		at := memNow.Add(time.Hour)
		claimed := msgClaim(t, ctx, store, ports.Claim{Worker: "w1", Now: at, Lease: time.Minute, MaxConversations: 10})
		if ids := msgIDs(claimed); !slices.Equal(ids, []string{"f1", "e1"}) {
			t.Fatalf("claimed %v, want the earliest conversation of each user [f1 e1]", ids)
		}
		for _, recover := range []bool{false, true} {
			if got := msgClaim(t, ctx, store, ports.Claim{Worker: "w2", Now: at, Lease: time.Minute, MaxConversations: 10, Recover: recover}); len(got) != 0 {
				t.Errorf("recover=%v: another worker took %v while the user's first conversation is claimed", recover, msgIDs(got))
			}
		}
		msgFinish(t, ctx, store, "w1", claimed[:1], at)
		if ids := msgIDs(msgClaim(t, ctx, store, ports.Claim{Worker: "w2", Now: at, Lease: time.Minute, MaxConversations: 10})); !slices.Equal(ids, []string{"s1"}) {
			t.Errorf("after the first was finished, claimed %v, want [s1]", ids)
		}
		if ids := msgIDs(msgClaim(t, ctx, store, ports.Claim{Worker: "w3", Now: at.Add(2 * time.Minute), Lease: time.Minute, MaxConversations: 10, Recover: true})); !slices.Equal(ids, []string{"s1", "e1"}) {
			t.Errorf("lapsed claims do not hold their users: recovered %v, want [s1 e1]", ids)
		}
	})

	t.Run("MaxWait caps the debounce push of a conversation that never goes quiet", func(t *testing.T) {
		t.Parallel()
		store, _ := open(t)
		msgBatching(t, store, conversation.Batching{MaxWait: time.Minute})
		ctx := memTestContext(t)
		var ids []string
		batchStart := memNow
		for i := range 20 { // a user message every 5 s: the debounce alone would wait for ever
			at := memNow.Add(time.Duration(i) * 5 * time.Second)
			id := fmt.Sprintf("m%02d", i)
			ids = append(ids, id)
			res := msgIngest(t, ctx, store, msgMust(t, msgUser("chatty", id, "and another thing"), at, debounce))
			want := at.Add(debounce)
			if limit := batchStart.Add(time.Minute); limit.Before(want) {
				want = limit
			}
			if got := res[0].Message.ProcessAfter; !got.Equal(want) {
				t.Fatalf("message %d: Ingest says due %v, want %v", i, got, want)
			}
			if got := msgGet(t, ctx, store, ids[0]).ProcessAfter; !got.Equal(want) {
				t.Fatalf("after message %d the batch's first is due %v, want %v", i, got, want)
			}
			if i == 12 { // at 60 s: what has arrived is due, together
				claimed := msgClaim(t, ctx, store, ports.Claim{Worker: "w", Now: memNow.Add(time.Minute), Lease: time.Minute, MaxConversations: 10})
				if got := msgIDs(claimed); !slices.Equal(got, ids) {
					t.Fatalf("claimed %v at the cap, want %v", got, ids)
				}
				msgFinish(t, ctx, store, "w", claimed, memNow.Add(time.Minute))
				ids, batchStart = nil, at.Add(5*time.Second) // the next batch counts from its own oldest message
			}
		}
	})

	t.Run("MaxMessages makes a conversation due at once", func(t *testing.T) {
		t.Parallel()
		store, _ := open(t)
		msgBatching(t, store, conversation.Batching{MaxMessages: 3})
		ctx := memTestContext(t)
		msgIngest(t, ctx, store, msgMust(t, msgUser("c1", "m1", "one"), memNow, debounce))
		msgIngest(t, ctx, store, msgMust(t, msgUser("c1", "m2", "two"), memNow.Add(time.Second), debounce))
		if got := msgGet(t, ctx, store, "m1").ProcessAfter; !got.Equal(memNow.Add(time.Second + debounce)) {
			t.Fatalf("two messages: due %v, want the debounce", got)
		}
		third := memNow.Add(2 * time.Second)
		res := msgIngest(t, ctx, store, msgMust(t, msgUser("c1", "m3", "three"), third, debounce))
		if !res[0].Message.ProcessAfter.Equal(third) {
			t.Errorf("Ingest says the third is due %v, want %v", res[0].Message.ProcessAfter, third)
		}
		claimed := msgClaim(t, ctx, store, ports.Claim{Worker: "w", Now: third, Lease: time.Minute, MaxConversations: 10})
		if ids := msgIDs(claimed); !slices.Equal(ids, []string{"m1", "m2", "m3"}) {
			t.Errorf("claimed %v when the third arrived, want [m1 m2 m3]", ids)
		}
	})

	t.Run("a lapsed claim comes back through recovery and only its new holder finishes", func(t *testing.T) {
		t.Parallel()
		store, _ := open(t)
		ctx := memTestContext(t)
		msgIngest(t, ctx, store, msgMust(t, msgUser("c1", "m1", "I am vegetarian."), memNow, debounce))
		at := memNow.Add(debounce)
		dead := msgClaim(t, ctx, store, ports.Claim{Worker: "dead", Now: at, Lease: time.Minute, MaxConversations: 1})
		if len(dead) != 1 {
			t.Fatalf("claimed %d", len(dead))
		}
		later := at.Add(2 * time.Minute)
		if got := msgClaim(t, ctx, store, ports.Claim{Worker: "live", Now: later, Lease: time.Minute, MaxConversations: 1}); len(got) != 0 {
			t.Errorf("the poll took a lapsed claim: %v", msgIDs(got))
		}
		live := msgClaim(t, ctx, store, ports.Claim{Worker: "live", Now: later, Lease: time.Minute, MaxConversations: 1, Recover: true})
		if ids := msgIDs(live); !slices.Equal(ids, []string{"m1"}) {
			t.Fatalf("recovered %v, want [m1]", ids)
		}
		if n, err := store.Finish(ctx, "live", []conversation.Message{live[0].Processed(later)}); err != nil || n != 1 {
			t.Fatalf("live finish = %d, %v", n, err)
		}
		stale := dead[0].Failed("too slow", later, retry.Policy{})
		if n, err := store.Finish(ctx, "dead", []conversation.Message{stale}); err != nil || n != 0 {
			t.Errorf("stale finish = %d, %v; want 0 stored", n, err)
		}
		got := msgGet(t, ctx, store, "m1")
		if got.Status != conversation.StatusProcessed || got.Attempts != 1 || got.Error != "" {
			t.Errorf("after the stale finish: %+v", got)
		}
	})

	t.Run("failed messages return after their backoff and exhausted ones never", func(t *testing.T) {
		t.Parallel()
		store, _ := open(t)
		ctx := memTestContext(t)
		other := memory.Scope{Tenant: "t1", User: "u2"} // claimed together: one conversation per user
		msgIngest(t, ctx, store, msgMust(t, msgUser("c1", "retry", "I like jazz."), memNow, debounce))
		msgIngestFor(t, ctx, store, other, msgMustFor(t, other, msgUser("c2", "final", "I like tea."), memNow, debounce))
		at := memNow.Add(debounce)
		claimed := msgClaim(t, ctx, store, ports.Claim{Worker: "w", Now: at, Lease: time.Minute, MaxConversations: 10})
		policy := retry.Policy{MaxAttempts: 2, BaseDelay: time.Minute}
		var out []conversation.Message
		for _, m := range claimed {
			f := m.Failed("llm: unavailable", at, policy)
			if m.ID == "final" {
				f = f.Failed("llm: unavailable", at, policy) // second failure: out of attempts
			}
			out = append(out, f)
		}
		if n, err := store.Finish(ctx, "w", out); err != nil || n != 2 {
			t.Fatalf("finish = %d, %v", n, err)
		}
		if got := msgGet(t, ctx, store, "retry"); got.Status != conversation.StatusFailed || got.Attempts != 1 ||
			got.Error != "llm: unavailable" || !got.ProcessAfter.Equal(at.Add(time.Minute)) {
			t.Errorf("retry stored as %+v", got)
		}
		if got := msgClaim(t, ctx, store, ports.Claim{Worker: "w", Now: at.Add(30 * time.Second), Lease: time.Minute, MaxConversations: 10, Recover: true}); len(got) != 0 {
			t.Errorf("recovered before the backoff: %v", msgIDs(got))
		}
		if got := msgClaim(t, ctx, store, ports.Claim{Worker: "w", Now: at.Add(time.Hour), Lease: time.Minute, MaxConversations: 10}); len(got) != 0 {
			t.Errorf("the poll took a FAILED message: %v", msgIDs(got))
		}
		got := msgClaim(t, ctx, store, ports.Claim{Worker: "w", Now: at.Add(time.Hour), Lease: time.Minute, MaxConversations: 10, Recover: true})
		if ids := msgIDs(got); !slices.Equal(ids, []string{"retry"}) {
			t.Errorf("recovered %v, want [retry] only", ids)
		}
	})

	t.Run("release gives claimed messages back at once", func(t *testing.T) {
		t.Parallel()
		store, _ := open(t)
		ctx := memTestContext(t)
		msgIngest(t, ctx, store, msgMust(t, msgUser("c1", "m1", "I like jazz."), memNow, debounce))
		at := memNow.Add(debounce)
		claimed := msgClaim(t, ctx, store, ports.Claim{Worker: "w1", Now: at, Lease: time.Hour, MaxConversations: 1})
		if err := store.Release(ctx, "w2", claimed); err != nil {
			t.Fatal(err)
		}
		if got := msgClaim(t, ctx, store, ports.Claim{Worker: "w2", Now: at, Lease: time.Hour, MaxConversations: 1}); len(got) != 0 {
			t.Fatal("another worker released w1's claim")
		}
		if err := store.Release(ctx, "w1", claimed); err != nil {
			t.Fatal(err)
		}
		if got := msgClaim(t, ctx, store, ports.Claim{Worker: "w2", Now: at, Lease: time.Hour, MaxConversations: 1}); len(got) != 1 {
			t.Errorf("after release, claimed %d, want 1", len(got))
		}
	})

	t.Run("conversation before returns the most recent earlier messages oldest first", func(t *testing.T) {
		t.Parallel()
		store, _ := open(t)
		ctx := memTestContext(t)
		var all []conversation.Message
		for i := range 6 {
			role := "user"
			if i%2 == 1 {
				role = "assistant"
			}
			at := memNow.Add(time.Duration(i/2) * time.Second) // pairs said at the same time: Seq decides
			all = append(all, msgMust(t, conversation.Input{ConversationID: "c1", MessageID: fmt.Sprintf("m%d", i), Role: role, Content: fmt.Sprintf("text %d", i), CreatedAt: at}, memNow, debounce))
		}
		msgIngest(t, ctx, store, all...)
		msgIngest(t, ctx, store, msgMust(t, msgUser("other", "o1", "elsewhere"), memNow, debounce))
		got, err := store.ConversationBefore(ctx, all[5], 3)
		if err != nil {
			t.Fatal(err)
		}
		if ids := msgIDs(got); !slices.Equal(ids, []string{"m2", "m3", "m4"}) {
			t.Errorf("before m5 (limit 3): %v, want [m2 m3 m4]", ids)
		}
		got, _ = store.ConversationBefore(ctx, all[0], 10)
		if len(got) != 0 {
			t.Errorf("before the first: %v", msgIDs(got))
		}
	})

	t.Run("caused events are the memory events whose source is the message", func(t *testing.T) {
		t.Parallel()
		store, memories := open(t)
		ctx := memTestContext(t)
		src := memory.Source{Channel: memory.ChannelExtraction, ConversationID: "c1", MessageID: "m1"}
		if _, err := memSave(ctx, memories, memScope1, memory.MustParseKey("allergy.peanuts"), memDraft(t, memory.TypeFact, "User is allergic to peanuts.", 5, 0.95, 0, src), memNow); err != nil {
			t.Fatal(err)
		}
		if _, err := memSave(ctx, memories, memScope1, memory.MustParseKey("reply.language"), memDraft(t, memory.TypeConstraint, "以后都用中文回复用户。", 4, 0.95, 0, src), memNow); err != nil {
			t.Fatal(err)
		}
		if _, err := memSave(ctx, memories, memScope1, memory.MustParseKey("other"), memDraft(t, memory.TypeFact, "unrelated", 3, 0.9, 0, memory.Source{Channel: memory.ChannelTool}), memNow); err != nil {
			t.Fatal(err)
		}
		if _, err := memSave(ctx, memories, memory.Scope{Tenant: "t1", User: "u2"}, memory.MustParseKey("k"), memDraft(t, memory.TypeFact, "another user", 3, 0.9, 0, src), memNow); err != nil {
			t.Fatal(err)
		}
		events, err := store.CausedEvents(ctx, memScope1, "m1")
		if err != nil {
			t.Fatal(err)
		}
		var keys []memory.Key
		for _, e := range events {
			keys = append(keys, e.Key)
			if e.Op != memory.OpAdd || e.Source != src {
				t.Errorf("event %+v", e)
			}
		}
		if !slices.Equal(keys, []memory.Key{memory.MustParseKey("allergy.peanuts"), memory.MustParseKey("reply.language")}) {
			t.Errorf("caused events for keys %v", keys)
		}
		if none, err := store.CausedEvents(ctx, memScope1, "nothing"); err != nil || len(none) != 0 {
			t.Errorf("unknown message: %v, %v", none, err)
		}
	})

	t.Run("stats count messages by status and find the oldest pending", func(t *testing.T) {
		t.Parallel()
		store, _ := open(t)
		ctx := memTestContext(t)
		st, err := store.Stats(ctx, memNow)
		if err != nil {
			t.Fatal(err)
		}
		if st.ByStatus[conversation.StatusPending] != 0 || !st.OldestPending.IsZero() {
			t.Errorf("empty store: %+v", st)
		}
		msgIngest(t, ctx, store,
			msgMust(t, msgUser("c1", "m1", "I like jazz."), memNow, debounce),
			msgMust(t, conversation.Input{ConversationID: "c1", MessageID: "a1", Role: "assistant", Content: "ok"}, memNow, debounce))
		msgIngest(t, ctx, store, msgMust(t, msgUser("c2", "m2", "I like tea."), memNow.Add(time.Minute), debounce))
		st, err = store.Stats(ctx, memNow)
		if err != nil {
			t.Fatal(err)
		}
		if st.ByStatus[conversation.StatusPending] != 2 || st.ByStatus[conversation.StatusSkipped] != 1 ||
			st.ByStatus[conversation.StatusProcessed] != 0 || !st.OldestPending.Equal(memNow) {
			t.Errorf("stats %+v", st)
		}
	})

	t.Run("concurrent claimers never get the same message nor two conversations of one user", func(t *testing.T) {
		t.Parallel()
		store, _ := open(t)
		ctx := memTestContext(t)
		total := 0
		for u := range 8 {
			scope := memory.Scope{Tenant: "t1", User: fmt.Sprintf("u%d", u)}
			var msgs []conversation.Message
			for i := range 5 {
				for j := range 2 {
					msgs = append(msgs, msgMustFor(t, scope, msgUser(fmt.Sprintf("c%02d", i), fmt.Sprintf("m%02d-%d", i, j), "I like jazz."),
						memNow.Add(time.Duration(i)*time.Millisecond), debounce))
				}
			}
			msgIngestFor(t, ctx, store, scope, msgs...)
			total += len(msgs)
		}
		var (
			mu   sync.Mutex
			seen = map[string]string{} // user/message → worker
			held = map[string]string{} // user → worker holding one of their conversations
			wg   sync.WaitGroup
		)
		at := memNow.Add(time.Hour)
		for w := range 4 {
			worker := fmt.Sprintf("w%d", w)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					got, err := store.ClaimDue(ctx, ports.Claim{Worker: worker, Now: at, Lease: time.Hour, MaxConversations: 3})
					if err != nil {
						t.Errorf("%s: claim: %v", worker, err)
						return
					}
					if len(got) == 0 {
						return
					}
					users := map[string]bool{}
					mu.Lock()
					for _, m := range got {
						key := m.Scope.User + "/" + m.ID
						if prev, dup := seen[key]; dup {
							t.Errorf("%s claimed %s, already claimed by %s", worker, key, prev)
						}
						seen[key] = worker
						if holder, busy := held[m.Scope.User]; busy && !users[m.Scope.User] {
							t.Errorf("%s claimed a conversation of %s while %s holds another", worker, m.Scope.User, holder)
						}
						users[m.Scope.User] = true
						held[m.Scope.User] = worker
					}
					for u := range users { // given up before the store releases them
						delete(held, u)
					}
					mu.Unlock()
					done := make([]conversation.Message, len(got))
					for i, m := range got {
						done[i] = m.Processed(at)
					}
					if _, err := store.Finish(ctx, worker, done); err != nil {
						t.Errorf("%s: finish: %v", worker, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		if len(seen) != total {
			t.Errorf("%d of %d messages claimed", len(seen), total)
		}
	})
}

// RunJobStore is the contract every ports.JobStore adapter must pass.
func RunJobStore(t *testing.T, open func(t *testing.T) ports.JobStore) {
	t.Helper()
	newJob := func(scope memory.Scope, created time.Time) ports.Job {
		return ports.Job{ID: memNewID(), Scope: scope, Kind: ports.JobConsolidate, CreatedAt: created}
	}

	t.Run("enqueue joins a queued job of the same user and kind", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		first, err := store.EnqueueJob(ctx, newJob(memScope1, memNow))
		if err != nil {
			t.Fatal(err)
		}
		if first.Status != ports.JobQueued || first.Attempts != 0 {
			t.Errorf("enqueued %+v", first)
		}
		second, err := store.EnqueueJob(ctx, newJob(memScope1, memNow.Add(time.Second)))
		if err != nil || second.ID != first.ID {
			t.Errorf("second enqueue = %+v, %v; want the first job", second, err)
		}
		other, err := store.EnqueueJob(ctx, newJob(memory.Scope{Tenant: "t1", User: "u2"}, memNow))
		if err != nil || other.ID == first.ID {
			t.Errorf("another user's job = %+v, %v", other, err)
		}
		if _, err := store.Job(ctx, "t2", first.ID); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("another tenant reads the job: %v", err)
		}
	})

	t.Run("claim, finish and read back", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		created := time.Date(2026, 11, 30, 9, 0, 0, 123456789, time.UTC)
		job, err := store.EnqueueJob(ctx, newJob(memScope1, created))
		if err != nil {
			t.Fatal(err)
		}
		claimed, err := store.ClaimJob(ctx, "w1", memNow, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if claimed.ID != job.ID || claimed.Status != ports.JobRunning || claimed.Attempts != 1 || !claimed.StartedAt.Equal(memNow) {
			t.Errorf("claimed %+v", claimed)
		}
		if _, err := store.ClaimJob(ctx, "w2", memNow, time.Minute); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("a held job was claimed again: %v", err)
		}
		claimed.Status, claimed.FinishedAt = ports.JobDone, memNow.Add(time.Second)
		claimed.Counts = map[string]int{"merged": 2, "expired": 1}
		if err := store.FinishJob(ctx, "w2", claimed); !errors.Is(err, ports.ErrConflict) {
			t.Errorf("finish by a non-holder: %v, want a conflict", err)
		}
		if err := store.FinishJob(ctx, "w1", claimed); err != nil {
			t.Fatal(err)
		}
		got, err := store.Job(ctx, "t1", job.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != ports.JobDone || got.Counts["merged"] != 2 || got.Counts["expired"] != 1 ||
			!got.CreatedAt.Equal(created.Truncate(time.Microsecond)) || !got.FinishedAt.Equal(memNow.Add(time.Second)) || got.Scope != memScope1 {
			t.Errorf("read back %+v", got)
		}
		if _, err := store.ClaimJob(ctx, "w2", memNow.Add(time.Hour), time.Minute); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("a finished job was claimed: %v", err)
		}
		next, err := store.EnqueueJob(ctx, newJob(memScope1, memNow))
		if err != nil || next.ID == job.ID {
			t.Errorf("enqueue after the job ran = %+v, %v; want a new job", next, err)
		}
	})

	t.Run("a job finished QUEUED is claimable again from its retry time", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		job, err := store.EnqueueJob(ctx, newJob(memScope1, memNow))
		if err != nil {
			t.Fatal(err)
		}
		claimed, err := store.ClaimJob(ctx, "w1", memNow, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		claimed.Status, claimed.Error, claimed.RetryAt = ports.JobQueued, "the vector store is down", memNow.Add(time.Minute)
		claimed.Counts = map[string]int{"memories": 3}
		if err := store.FinishJob(ctx, "w1", claimed); err != nil {
			t.Fatal(err)
		}
		if _, err := store.ClaimJob(ctx, "w2", memNow.Add(59*time.Second), time.Hour); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("claimed before its retry time: %v", err)
		}
		again, err := store.ClaimJob(ctx, "w2", memNow.Add(time.Minute), time.Hour)
		if err != nil || again.ID != job.ID || again.Attempts != 2 || again.Counts["memories"] != 3 || again.Error != "the vector store is down" {
			t.Errorf("claim at the retry time = %+v, %v; want the job, second attempt, with its counts", again, err)
		}
	})

	t.Run("a lapsed claim is taken by another worker", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		if _, err := store.EnqueueJob(ctx, newJob(memScope1, memNow)); err != nil {
			t.Fatal(err)
		}
		if _, err := store.ClaimJob(ctx, "dead", memNow, time.Minute); err != nil {
			t.Fatal(err)
		}
		again, err := store.ClaimJob(ctx, "live", memNow.Add(2*time.Minute), time.Minute)
		if err != nil || again.Attempts != 2 {
			t.Fatalf("reclaim = %+v, %v", again, err)
		}
		again.Status = ports.JobDone
		if err := store.FinishJob(ctx, "dead", again); !errors.Is(err, ports.ErrConflict) {
			t.Errorf("the dead worker finished: %v", err)
		}
	})
}

// ---------------------------------------------------------------- helpers

func msgUser(conv, id, content string) conversation.Input {
	return conversation.Input{ConversationID: conv, MessageID: id, Role: "user", Content: content}
}

func msgMust(t *testing.T, in conversation.Input, now time.Time, debounce time.Duration) conversation.Message {
	t.Helper()
	m, err := conversation.New(memScope1, in, memNewID(), now, debounce)
	if err != nil {
		t.Fatalf("message: %v", err)
	}
	return m
}

func msgMustFor(t *testing.T, scope memory.Scope, in conversation.Input, now time.Time, debounce time.Duration) conversation.Message {
	t.Helper()
	m, err := conversation.New(scope, in, memNewID(), now, debounce)
	if err != nil {
		t.Fatalf("message: %v", err)
	}
	return m
}

func msgIngest(t *testing.T, ctx context.Context, store MessageStore, msgs ...conversation.Message) []ports.Ingested {
	t.Helper()
	return msgIngestFor(t, ctx, store, memScope1, msgs...)
}

func msgIngestFor(t *testing.T, ctx context.Context, store MessageStore, scope memory.Scope, msgs ...conversation.Message) []ports.Ingested {
	t.Helper()
	res, err := store.Ingest(ctx, scope, msgs)
	if err != nil {
		t.Fatalf("ingest: %v", err)
	}
	if len(res) != len(msgs) {
		t.Fatalf("ingest returned %d results for %d messages", len(res), len(msgs))
	}
	return res
}

func msgGet(t *testing.T, ctx context.Context, store MessageStore, id string) conversation.Message {
	t.Helper()
	m, err := store.Message(ctx, memScope1, id)
	if err != nil {
		t.Fatalf("get %s: %v", id, err)
	}
	return m
}

func msgClaim(t *testing.T, ctx context.Context, store MessageStore, c ports.Claim) []conversation.Message {
	t.Helper()
	got, err := store.ClaimDue(ctx, c)
	if err != nil {
		t.Fatalf("claim: %v", err)
	}
	return got
}

// msgFinish stores the claimed messages as processed.
func msgFinish(t *testing.T, ctx context.Context, store MessageStore, worker string, claimed []conversation.Message, at time.Time) {
	t.Helper()
	done := make([]conversation.Message, len(claimed))
	for i, m := range claimed {
		done[i] = m.Processed(at)
	}
	if n, err := store.Finish(ctx, worker, done); err != nil || n != len(done) {
		t.Fatalf("finish = %d, %v; want %d stored", n, err, len(done))
	}
}

// msgBatching sets the batching limits of a store under test.
func msgBatching(t *testing.T, store MessageStore, b conversation.Batching) {
	t.Helper()
	s, ok := store.(interface{ SetBatching(conversation.Batching) })
	if !ok {
		t.Fatalf("%T has no SetBatching: the batching limits cannot be given to it", store)
	}
	s.SetBatching(b)
}

func msgIDs(msgs []conversation.Message) []string {
	ids := make([]string, len(msgs))
	for i, m := range msgs {
		ids[i] = m.ID
	}
	return ids
}

func msgExpect(t *testing.T, what string, got, want conversation.Message) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

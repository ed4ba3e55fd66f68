package extraction_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"engram/adapters/ulids"
	"engram/app/extraction"
	"engram/domain/candidate"
	"engram/domain/conversation"
	"engram/domain/retry"
	"engram/ports"
	"engram/test/contract"
	"engram/test/fakeclock"
	"engram/test/teststore"
	"engram/test/wait"
)

// testWorkerCrash: worker A claims a conversation and dies without a word; the
// poll of worker B does not take the claim, its rescan after the lease does, and
// the memories are written once.
func testWorkerCrash(t *testing.T, memories ports.MemoryStore, msgs contract.MessageStore) {
	a := newEnv(t, envOptions{memories: memories, messages: msgs, worker: "worker-a"})
	a.post("c1", user("m1", "Please remember that I am allergic to peanuts."))
	a.clock.Advance(debounce + time.Second)
	claimed, err := msgs.ClaimDue(context.Background(), ports.Claim{Worker: "worker-a", Now: a.clock.Now(),
		Lease: 5 * time.Minute, MaxConversations: 4})
	if err != nil || len(claimed) != 1 {
		t.Fatalf("worker A claimed %d, %v", len(claimed), err)
	}
	// Worker A dies here.

	b := newEnv(t, envOptions{memories: memories, messages: msgs, worker: "worker-b"})
	b.clock.Set(a.clock.Now().Add(time.Minute))
	if n, err := b.runner.Tick(context.Background(), false); n != 0 || err != nil {
		t.Fatalf("B's poll took A's live claim: %d, %v", n, err)
	}
	if n, err := b.runner.Tick(context.Background(), true); n != 0 || err != nil {
		t.Fatalf("B's rescan took A's claim before the lease ended: %d, %v", n, err)
	}
	b.clock.Advance(5 * time.Minute)
	if n, err := b.runner.Tick(context.Background(), true); n != 1 || err != nil {
		t.Fatalf("B's rescan after the lease stored %d outcomes, %v; want 1", n, err)
	}
	m := b.message("m1")
	if m.Status != conversation.StatusProcessed || m.Attempts != 1 {
		t.Errorf("m1 %+v", m)
	}
	if live := b.live(); len(live) != 1 {
		t.Errorf("memories %v", keysOf(live))
	}
	// Worker A comes back from the dead and reports: its outcome is not stored.
	late := claimed[0].Failed("worker a was frozen", b.clock.Now(), retry.Policy{})
	if n, err := msgs.Finish(context.Background(), "worker-a", []conversation.Message{late}); n != 0 || err != nil {
		t.Errorf("stale finish stored %d, %v", n, err)
	}
	if m := b.message("m1"); m.Status != conversation.StatusProcessed {
		t.Errorf("after the stale finish: %+v", m)
	}
}

func TestRunner_deadWorkersClaimIsProcessedByAnotherAfterTheLease(t *testing.T) {
	t.Parallel()
	stores := teststore.New(t)
	testWorkerCrash(t, stores.Memories, stores.Messages)
}

func TestRunner_deadWorkersClaimIsProcessedByAnotherAfterTheLease_Postgres(t *testing.T) {
	t.Parallel()
	stores := teststore.NewPostgres(t)
	testWorkerCrash(t, stores.Memories, stores.Messages)
}

// testCrashAfterWrites: a worker wrote the memories and died before storing the
// outcome; the rescan runs the same messages again and writes nothing new.
func testCrashAfterWrites(t *testing.T, memories ports.MemoryStore, msgs contract.MessageStore) {
	a := newEnv(t, envOptions{memories: memories, messages: msgs, worker: "worker-a"})
	a.post("c1", user("m1", "I am allergic to peanuts and I love jazz."), user("m2", "记住，以后都用中文回复我。"))
	a.clock.Advance(debounce + time.Second)
	claimed, err := msgs.ClaimDue(context.Background(), ports.Claim{Worker: "worker-a", Now: a.clock.Now(), Lease: time.Minute, MaxConversations: 1})
	if err != nil || len(claimed) != 2 {
		t.Fatalf("claimed %d, %v", len(claimed), err)
	}
	if _, rep := a.pipeline.Process(context.Background(), claimed); rep.Err != nil || rep.Written != 3 {
		t.Fatalf("first run: written %d, %v", rep.Written, rep.Err)
	}
	before := a.events()
	// Died before Finish.
	a.clock.Advance(2 * time.Minute)
	if n, err := a.runner.Tick(context.Background(), true); n != 2 || err != nil {
		t.Fatalf("rescan stored %d, %v", n, err)
	}
	after := a.events()
	if countEvents(after) != countEvents(before) || len(after) != 3 {
		t.Errorf("events before %v\nafter %v", before, after)
	}
	for _, id := range []string{"m1", "m2"} {
		if m := a.message(id); m.Status != conversation.StatusProcessed || m.Attempts != 1 {
			t.Errorf("%s %+v", id, m)
		}
	}
}

func TestRunner_reprocessingAfterACrashDoesNotDuplicate(t *testing.T) {
	t.Parallel()
	stores := teststore.New(t)
	testCrashAfterWrites(t, stores.Memories, stores.Messages)
}

func TestRunner_reprocessingAfterACrashDoesNotDuplicate_Postgres(t *testing.T) {
	t.Parallel()
	stores := teststore.NewPostgres(t)
	testCrashAfterWrites(t, stores.Memories, stores.Messages)
}

func TestRunner_samePostTwiceLeavesOneSetOfMemories(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.post("c1", user("m1", "Please remember that I am allergic to peanuts."))
	e.tick()
	first := e.events()
	e.post("c1", user("m1", "Please remember that I am allergic to peanuts."))
	e.tick()
	if m := e.message("m1"); m.Attempts != 1 || m.Status != conversation.StatusProcessed {
		t.Errorf("the repeat reset the message: %+v", m)
	}
	if after := e.events(); countEvents(after) != countEvents(first) || countEvents(after) != 1 {
		t.Errorf("events %v, then %v", first, after)
	}
}

func TestRunner_startProcessesNotifiedWorkAndStopsCleanly(t *testing.T) {
	t.Parallel()
	stores := teststore.New(t)
	mem, msgs := stores.Memories, stores.Messages
	e := newEnv(t, envOptions{memories: mem, messages: msgs})
	clock := fakeclock.New(time.Now().UTC())
	ids := ulids.New()
	p := extraction.New(extraction.Deps{Extractor: stubExtractor{}, Refiner: keepAll{}, Memories: mem, Messages: msgs, Clock: clock, IDs: ids}, extraction.Options{})
	log := &reportLog{}
	r := extraction.NewRunner(msgs, p, clock, extraction.RunnerOptions{Worker: "w", PollInterval: time.Hour, Observer: log})
	r.Start()
	m, err := conversation.New(scope, conversation.Input{ConversationID: "c1", MessageID: "m1", Role: "user", Content: "I like tea."}, ids.New(), clock.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := msgs.Ingest(context.Background(), scope, []conversation.Message{m}); err != nil {
		t.Fatal(err)
	}
	r.Notify(m.ProcessAfter)
	wait.Until(t, 10*time.Second, "the notified message processed (the poll interval is an hour)", func() bool { return len(log.All()) > 0 })
	if n := len(log.All()); n != 1 {
		t.Fatalf("%d messages processed, want the one notified", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.Stop(ctx); err != nil {
		t.Errorf("stop: %v", err)
	}
	if got := e.message("m1"); got.Status != conversation.StatusProcessed {
		t.Errorf("m1 %+v", got)
	}
}

func TestRunner_stopReleasesRunsCutShort(t *testing.T) {
	t.Parallel()
	stores := teststore.New(t)
	mem, msgs := stores.Memories, stores.Messages
	clock := fakeclock.New(time.Now().UTC())
	ids := ulids.New()
	blocked := make(chan struct{})
	p := extraction.New(extraction.Deps{Extractor: blockingExtractor{started: blocked}, Refiner: keepAll{}, Memories: mem, Messages: msgs, Clock: clock, IDs: ids}, extraction.Options{})
	r := extraction.NewRunner(msgs, p, clock, extraction.RunnerOptions{Worker: "w", PollInterval: 10 * time.Millisecond})
	m, _ := conversation.New(scope, conversation.Input{ConversationID: "c1", MessageID: "m1", Role: "user", Content: "I like tea."}, ids.New(), clock.Now(), 0)
	if _, err := msgs.Ingest(context.Background(), scope, []conversation.Message{m}); err != nil {
		t.Fatal(err)
	}
	r.Start()
	<-blocked
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := r.Stop(ctx); err == nil {
		t.Error("stop reported a clean finish although a run was cut short")
	}
	got, _ := msgs.Message(context.Background(), scope, "m1")
	if got.Status != conversation.StatusPending || got.Attempts != 0 {
		t.Errorf("m1 %+v, want PENDING, untouched", got)
	}
	again, err := msgs.ClaimDue(context.Background(), ports.Claim{Worker: "other", Now: clock.Now(), Lease: time.Minute, MaxConversations: 1})
	if err != nil || !slices.Equal(msgIDs(again), []string{"m1"}) {
		t.Errorf("after stop another worker claimed %v, %v; want m1 at once", msgIDs(again), err)
	}
}

type blockingExtractor struct{ started chan struct{} }

func (b blockingExtractor) Extract(ctx context.Context, _ ports.ExtractionInput) ([]candidate.Candidate, ports.LLMUsage, error) {
	close(b.started)
	<-ctx.Done()
	return nil, ports.LLMUsage{}, ctx.Err()
}

func msgIDs(msgs []conversation.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.ID
	}
	return out
}

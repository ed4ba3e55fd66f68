package extraction_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"engram/adapters/llmbudget"
	"engram/adapters/rules/gate"
	"engram/adapters/ulids"
	"engram/app/extraction"
	"engram/app/messages"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/test/contract"
	"engram/test/fakeclock"
	"engram/test/fakellm"
	"engram/test/teststore"
)

// These tests run the pipeline through the real langchaingo client against the
// scripted endpoint and count what it was asked (issue 10: cost).

const cityAndDogAnswer = `{"candidates":[
	{"op":"UPDATE","memory_type":"fact","key":"home.city","content":"The user lives in Berlin","importance":3,"confidence":0.9,"source_message":1},
	{"op":"ADD","memory_type":"fact","key":"pet.dog","content":"The user has a dog named Rex","importance":3,"confidence":0.9,"source_message":1}]}`

func TestLLMPipeline_noCollisionMeansNoRefineCall(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.EnqueueChat(fakellm.Answer(cityAndDogAnswer))
	e := newLLMEnv(t, srv, extraction.Options{})
	// The user has memories near the candidates (stage 2 is shown them when it
	// runs), but none with their keys or as alike as the duplicate threshold.
	e.save(memory.MustParseKey("pet.cat"), memory.TypeFact, "The user has a cat named Tom", 3)
	e.save(memory.MustParseKey("home.country"), memory.TypeFact, "The user lives in Germany", 3)
	e.post("c1", user("m1", "I moved to Berlin and I have a dog named Rex."))
	e.tick()
	if n := len(srv.ChatRequests()); n != 1 {
		t.Fatalf("%d model calls, want 1: nothing collides, so nothing to refine", n)
	}
	r := e.reports.All()[0]
	if r.Colliding != 0 || r.Written != 2 {
		t.Errorf("report colliding %d written %d, want 0 and 2", r.Colliding, r.Written)
	}
	if live := e.live(); len(live) != 4 {
		t.Errorf("memories %v", keysOf(live))
	}
}

func TestLLMPipeline_onlyTheCollidingCandidatesGoToOneRefineCall(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.EnqueueChat(fakellm.Answer(cityAndDogAnswer),
		fakellm.Answer(`{"decisions":[{"index":0,"verdict":"keep","reason":"the user moved"}]}`))
	e := newLLMEnv(t, srv, extraction.Options{})
	e.save(memory.MustParseKey("home.city"), memory.TypeFact, "The user lives in Hamburg", 3)
	e.post("c1", user("m1", "I moved to Berlin and I have a dog named Rex."))
	e.tick()
	reqs := srv.ChatRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want extract and one refine", len(reqs))
	}
	refine := reqs[1].Text("user")
	if !strings.Contains(refine, "Berlin") || !strings.Contains(refine, "Hamburg") || strings.Contains(refine, "Rex") {
		t.Errorf("the refine prompt must hold the colliding candidate and its memory only:\n%s", refine)
	}
	live := e.live()
	if live[memory.MustParseKey("home.city")].Content() != "The user lives in Berlin" || live[memory.MustParseKey("pet.dog")].Content() == "" {
		t.Errorf("memories %v", keysOf(live))
	}
	if r := e.reports.All()[0]; r.Colliding != 1 {
		t.Errorf("colliding %d, want 1", r.Colliding)
	}
}

func TestLLMPipeline_overBudgetMessagesWaitAndAreNeverFailed(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.HandleChat(func(fakellm.Request) fakellm.Reply { return fakellm.Answer(peanutAnswer) })
	e := newLLMEnvWith(t, srv, 2, envOptions{budget: llmbudget.New(1), runner: extraction.RunnerOptions{Concurrency: 1}})
	bob := memory.Scope{Tenant: scope.Tenant, User: "bob"}
	e.post("c1", user("m1", "Please remember that I am allergic to peanuts."))
	e.postAs(bob, "c2", user("b1", "Please remember that I am allergic to peanuts."))
	e.tick()

	if n := len(srv.ChatRequests()); n != 1 {
		t.Fatalf("%d model calls, want the one the budget allows", n)
	}
	waited := e.messageOf(bob, "b1")
	if waited.Status != conversation.StatusPending || waited.Attempts != 0 || !strings.Contains(waited.Error, "ENGRAM_LLM_TENANT_CALLS_PER_MINUTE") ||
		!waited.ProcessAfter.Equal(e.clock.Now().Add(time.Minute)) {
		t.Fatalf("over budget: %+v, want PENDING until the budget refills (1 min), no attempt used", waited)
	}
	var wait *extraction.Wait
	for _, r := range e.reports.All() {
		if r.Wait != nil {
			wait = r.Wait
		}
	}
	if wait == nil || wait.Reason != extraction.WaitBudget || wait.Stage != extraction.StageExtract {
		t.Fatalf("no report says the run waited for the budget: %+v", wait)
	}

	// Before the budget refills the poll finds nothing due; after, it is extracted.
	e.clock.Advance(30 * time.Second)
	if n, err := e.runner.Tick(context.Background(), false); n != 0 || err != nil {
		t.Fatalf("a waiting message was taken before its time: %d, %v", n, err)
	}
	e.clock.Advance(31 * time.Second)
	if n, err := e.runner.Tick(context.Background(), false); n != 1 || err != nil {
		t.Fatalf("after the refill: %d stored, %v", n, err)
	}
	if got := e.messageOf(bob, "b1"); got.Status != conversation.StatusProcessed || got.Attempts != 1 || got.Error != "" {
		t.Errorf("b1 %+v, want PROCESSED on its first attempt", got)
	}
}

func TestLLMPipeline_a429PausesEveryRunUntilRetryAfterWithoutUsingAttempts(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.EnqueueChat(fakellm.RateLimited("30"))
	srv.HandleChat(func(fakellm.Request) fakellm.Reply { return fakellm.Answer(peanutAnswer) })
	// No retries in the client: the 429 reaches the pipeline at once.
	e := newLLMEnvWith(t, srv, 0, envOptions{runner: extraction.RunnerOptions{Concurrency: 1}})
	bob := memory.Scope{Tenant: scope.Tenant, User: "bob"}
	e.post("c1", user("m1", "Please remember that I am allergic to peanuts."))
	e.postAs(bob, "c2", user("b1", "Please remember that I am allergic to peanuts."))
	e.tick()
	resume := e.clock.Now().Add(30 * time.Second)

	if n := len(srv.ChatRequests()); n != 1 {
		t.Fatalf("%d requests, want 1: after the 429 no run calls before Retry-After", n)
	}
	for _, m := range []conversation.Message{e.message("m1"), e.messageOf(bob, "b1")} {
		if m.Status != conversation.StatusPending || m.Attempts != 0 || !m.ProcessAfter.Equal(resume) || !strings.Contains(m.Error, "429") {
			t.Errorf("%s %+v, want PENDING until %v with no attempt used", m.ID, m, resume)
		}
	}
	e.clock.Set(resume)
	if n, err := e.runner.Tick(context.Background(), false); n != 2 || err != nil {
		t.Fatalf("after Retry-After: %d stored, %v; want both", n, err)
	}
	if got := e.message("m1"); got.Status != conversation.StatusProcessed || got.Attempts != 1 {
		t.Errorf("m1 %+v", got)
	}
}

func TestRunner_aChattyConversationIsExtractedAtMaxWaitThoughItsDebounceKeepsMoving(t *testing.T) {
	t.Parallel()
	stores := teststore.New(t)
	mem, msgs := stores.Memories, stores.Messages
	msgs.SetBatching(conversation.Batching{MaxWait: time.Minute})
	ext := &countingExtractor{Extractor: stubExtractor{}}
	e := newEnv(t, envOptions{memories: mem, messages: msgs, extractor: ext})
	began := e.clock.Now()
	for i := 0; ; i++ { // a user message every 5 s, each pushing the 12 s debounce
		e.post("chatty", user(fmt.Sprintf("m%02d", i), fmt.Sprintf("I also like hobby number %d.", i)))
		n, err := e.runner.Tick(context.Background(), false)
		if err != nil {
			t.Fatal(err)
		}
		elapsed := e.clock.Now().Sub(began)
		if n > 0 {
			if elapsed != time.Minute || n != 13 {
				t.Fatalf("extracted %d messages after %s, want the 13 that arrived, at 1m0s", n, elapsed)
			}
			break
		}
		if elapsed >= time.Minute {
			t.Fatalf("nothing extracted after %s though LONG_TERM_MEMORY_BATCH_MAX_WAIT_SEC is 60", elapsed)
		}
		e.clock.Advance(5 * time.Second)
	}
	if calls := ext.Calls(); len(calls) != 1 || len(calls[0]) != 13 {
		t.Errorf("extract calls %v, want one for the 13 messages", calls)
	}
}

// blockingProcessor records which users and conversations are being processed at
// once, and holds the first runs until want of them are in flight together.
type blockingProcessor struct {
	t    *testing.T
	want int

	mu        sync.Mutex
	active    map[string]bool // user → a run of theirs is in flight
	convs     map[string]int  // conversation → runs so far
	inFlight  int
	maxFlight int
	wave      chan struct{}
	once      sync.Once
}

func (p *blockingProcessor) Process(ctx context.Context, msgs []conversation.Message) ([]conversation.Message, extraction.Report) {
	user, conv := msgs[0].Scope.User, msgs[0].Scope.User+"/"+msgs[0].ConversationID
	p.mu.Lock()
	if p.active[user] {
		p.t.Errorf("two runs of %s at once", user)
	}
	p.active[user] = true
	p.convs[conv]++
	p.inFlight++
	p.maxFlight = max(p.maxFlight, p.inFlight)
	if p.inFlight == p.want {
		p.once.Do(func() { close(p.wave) })
	}
	p.mu.Unlock()
	select {
	case <-p.wave:
	case <-time.After(10 * time.Second):
		p.t.Errorf("only %d runs in flight at once, want %d", p.inFlight, p.want)
	case <-ctx.Done():
	}
	p.mu.Lock()
	p.active[user] = false
	p.inFlight--
	p.mu.Unlock()
	out := make([]conversation.Message, len(msgs))
	for i, m := range msgs {
		out[i] = m.Processed(time.Now())
	}
	return out, extraction.Report{}
}

func TestRunner_twoWorkersDrainWholeConversationsInParallel(t *testing.T) {
	t.Parallel()
	testTwoWorkers(t, teststore.New(t).Messages)
}

func TestRunner_twoWorkersDrainWholeConversationsInParallel_Postgres(t *testing.T) {
	t.Parallel()
	testTwoWorkers(t, teststore.NewPostgres(t).Messages)
}

// testTwoWorkers: two workers of four slots each drain 36 conversations of 12
// users; every conversation is processed once and whole, no user twice at once,
// and eight run at the same time.
func testTwoWorkers(t *testing.T, msgs contract.MessageStore) {
	clock := fakeclock.New(start)
	ingest := messages.New(msgs, clock, ulids.New(), messages.Options{})
	total := 0
	for u := range 12 {
		s := memory.Scope{Tenant: "t1", User: fmt.Sprintf("u%02d", u)}
		for c := range 3 {
			var in []conversation.Input
			for m := range 2 {
				in = append(in, conversation.Input{ConversationID: fmt.Sprintf("c%d", c), MessageID: fmt.Sprintf("c%d-m%d", c, m), Role: "user", Content: "I like tea."})
			}
			if _, err := ingest.PostBatch(context.Background(), messages.PostBatch{Scope: s, Messages: in}); err != nil {
				t.Fatal(err)
			}
			total += len(in)
		}
	}
	proc := &blockingProcessor{t: t, want: 8, active: map[string]bool{}, convs: map[string]int{}, wave: make(chan struct{})}
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		stored int
	)
	for w := range 2 {
		r := extraction.NewRunner(msgs, proc, clock, extraction.RunnerOptions{Worker: fmt.Sprintf("w%d", w), Concurrency: 4, Lease: time.Minute})
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := r.Tick(context.Background(), false)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			stored += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	if stored != total {
		t.Errorf("stored %d outcomes, want %d", stored, total)
	}
	if len(proc.convs) != 36 {
		t.Errorf("%d conversations processed, want 36", len(proc.convs))
	}
	for conv, n := range proc.convs {
		if n != 1 {
			t.Errorf("%s processed %d times: a conversation was split or taken twice", conv, n)
		}
	}
	if proc.maxFlight != 8 {
		t.Errorf("at most %d runs at once, want 8 (two workers × LONG_TERM_MEMORY_WORKER_CONCURRENCY 4)", proc.maxFlight)
	}
}

func TestLLMPipeline_theGateSpendsNoCallOnMessagesAboutNothingOfTheUser(t *testing.T) {
	t.Parallel()
	g, err := gate.New()
	if err != nil {
		t.Fatal(err)
	}
	srv := fakellm.New(t)
	srv.EnqueueChat(fakellm.Answer(peanutAnswer))
	e := newLLMEnvWith(t, srv, 2, envOptions{gate: g})
	e.post("c1", user("m1", "The weather has been lovely lately."), user("m2", "Today I went to a museum with a friend."))
	e.tick()
	if n := len(srv.ChatRequests()); n != 0 {
		t.Fatalf("%d model calls for messages that say nothing lasting about the user", n)
	}
	for _, id := range []string{"m1", "m2"} {
		if m := e.message(id); m.Status != conversation.StatusSkipped || m.SkipReason != gate.ReasonNothingAboutTheUser {
			t.Errorf("%s %+v", id, m)
		}
	}
	e.post("c2", user("m3", "Please remember that I am allergic to peanuts."))
	e.tick()
	if n := len(srv.ChatRequests()); n != 1 {
		t.Errorf("%d model calls, want 1 for a message about the user", n)
	}
}

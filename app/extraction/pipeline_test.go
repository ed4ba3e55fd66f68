package extraction_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"engram/adapters/rules"
	"engram/app/extraction"
	"engram/domain/candidate"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/domain/retry"
	"engram/ports"
)

func TestPipeline_learnsStableFactsAndStaysSilentOtherwise(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.post("c1", user("m1", "Please remember that I am allergic to peanuts."))
	e.post("c2", user("m2", "记住，以后都用中文回复我。"))
	e.post("c3", user("m3", "Remind me to bring an umbrella tomorrow."),
		assistant("a3", "Sure! By the way, you love hiking and live in Berlin."))
	if n := e.tick(); n != 3 {
		t.Errorf("tick stored %d outcomes, want 3 (the assistant message is never claimed)", n)
	}

	live := e.live()
	if len(live) != 2 {
		t.Fatalf("memories %v, want two", keysOf(live))
	}
	var peanuts, chinese memory.Memory
	for _, m := range live {
		switch {
		case strings.Contains(m.Content(), "peanut"):
			peanuts = m
		case strings.Contains(m.Content(), "中文"):
			chinese = m
		}
	}
	if peanuts.Key().IsZero() || peanuts.Source() != (memory.Source{Channel: memory.ChannelExtraction, ConversationID: "c1", MessageID: "m1"}) {
		t.Errorf("peanut memory %+v", peanuts.State())
	}
	if chinese.Key().IsZero() || chinese.Type() != memory.TypeConstraint || chinese.Source().MessageID != "m2" {
		t.Errorf("reply-language memory %+v", chinese.State())
	}
	for _, id := range []string{"m1", "m2"} {
		if m := e.message(id); m.Status != conversation.StatusProcessed || m.Attempts != 1 || m.Error != "" {
			t.Errorf("%s: %+v", id, m)
		}
	}
	if m := e.message("m3"); m.Status != conversation.StatusSkipped || m.SkipReason != string(candidate.ReasonCommand) {
		t.Errorf("the one-off reminder: %+v, want SKIPPED by the prefilter", m)
	}
	if a := e.message("a3"); a.Status != conversation.StatusSkipped || a.SkipReason != conversation.SkipNotFromUser || a.Attempts != 0 {
		t.Errorf("assistant message %+v", a)
	}
	events, err := e.messages.CausedEvents(context.Background(), scope, "m1")
	if err != nil || len(events) != 1 || events[0].Op != memory.OpAdd {
		t.Errorf("events of m1: %+v, %v", events, err)
	}
}

func TestPipeline_aConversationsDueMessagesAreExtractedInOneCall(t *testing.T) {
	t.Parallel()
	ext := &countingExtractor{Extractor: rules.NewExtractor(rules.ExtractorOptions{})}
	e := newEnv(t, envOptions{extractor: ext})
	e.post("c1", user("m1", "I live in Hamburg."))
	e.clock.Advance(5 * time.Second)
	e.post("c1", assistant("a1", "Nice city!"), user("m2", "Hi!"), user("m3", "And I work as a nurse."))
	e.clock.Advance(debounce - time.Second) // m1's first deadline has passed, but m3 pushed it
	if n, _ := e.runner.Tick(context.Background(), false); n != 0 {
		t.Fatalf("processed %d messages before the pushed debounce", n)
	}
	e.tick()
	if calls := ext.Calls(); len(calls) != 1 || !slices.Equal(calls[0], []string{"m1", "m3"}) {
		t.Errorf("extractor calls %v, want one call with [m1 m3] (m2 is a greeting)", calls)
	}
	if m := e.message("m2"); m.Status != conversation.StatusSkipped || m.SkipReason != string(candidate.ReasonGreeting) {
		t.Errorf("m2 %+v", m)
	}
	if live := e.live(); len(live) != 2 {
		t.Errorf("memories %v, want home city and work role", keysOf(live))
	}
}

func TestPipeline_prefilterSkipsWithoutAnExtractorCall(t *testing.T) {
	t.Parallel()
	ext := &countingExtractor{Extractor: rules.NewExtractor(rules.ExtractorOptions{})}
	e := newEnv(t, envOptions{extractor: ext})
	e.post("c1", user("m1", "Hello!"), user("m2", "Thanks a lot."), user("m3", "What's the capital of France?"))
	e.tick()
	if calls := ext.Calls(); len(calls) != 0 {
		t.Errorf("extractor called %v", calls)
	}
	want := map[string]candidate.Reason{"m1": candidate.ReasonGreeting, "m2": candidate.ReasonThanks, "m3": candidate.ReasonQuestion}
	for id, reason := range want {
		if m := e.message(id); m.Status != conversation.StatusSkipped || m.SkipReason != string(reason) || m.Attempts != 1 {
			t.Errorf("%s = %s/%s, want SKIPPED/%s", id, m.Status, m.SkipReason, reason)
		}
	}
	reps := e.reports.All()
	if len(reps) != 1 || reps[0].Skipped[string(candidate.ReasonGreeting)] != 1 || reps[0].ModelCalls() != 0 {
		t.Errorf("reports %+v", reps)
	}
}

func TestPipeline_processingTheSameMessagesTwiceWritesOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	msgs := e.post("c1", user("m1", "I am allergic to peanuts. I love jazz."), user("m2", "记住，以后都用中文回复我。"))
	e.clock.Advance(debounce)
	first, rep := e.pipeline.Process(context.Background(), msgs)
	if rep.Err != nil || rep.Written < 3 {
		t.Fatalf("first run: written %d, err %v", rep.Written, rep.Err)
	}
	before := e.events()
	// The worker died before storing the outcome; the same messages run again.
	second, rep := e.pipeline.Process(context.Background(), msgs)
	if rep.Err != nil || rep.Written != 0 || rep.Merged != 0 {
		t.Errorf("second run: written %d, merged %d, err %v; want nothing", rep.Written, rep.Merged, rep.Err)
	}
	if after := e.events(); countEvents(after) != countEvents(before) {
		t.Errorf("events before %v, after %v", before, after)
	}
	if first[0].Status != conversation.StatusProcessed || second[0].Status != conversation.StatusProcessed {
		t.Errorf("outcomes %s, %s", first[0].Status, second[0].Status)
	}
}

func TestPipeline_aSimilarMemoryLendsItsKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{extractor: stubExtractor{cands: []candidate.Candidate{
		{Op: candidate.OpAdd, Type: memory.TypePreference, Key: "pref.jazz_music", Content: "User loves listening to jazz music.", Importance: 3, Confidence: 0.9},
	}}})
	e.save(memory.MustParseKey("music.likes.jazz"), memory.TypePreference, "User loves listening to jazz music", 3)
	e.post("c1", user("m1", "I love listening to jazz music."))
	e.tick()
	live := e.live()
	if _, ok := live[memory.MustParseKey("pref.jazz_music")]; ok || len(live) != 1 {
		t.Errorf("memories %v, want only music.likes.jazz", keysOf(live))
	}
}

func TestPipeline_redundantCopiesAreMergedAfterTheWrite(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{
		extractor: stubExtractor{cands: []candidate.Candidate{
			{Op: candidate.OpAdd, Type: memory.TypeFact, Key: "home.city", Content: "User lives in Berlin, Germany", Importance: 4, Confidence: 0.95},
		}},
		// Keep what the extractor proposed, so the merge step (not the refiner) meets the copy.
		refiner: keepAll{},
	})
	e.save(memory.MustParseKey("home.city"), memory.TypeFact, "User lives in Hamburg", 3)
	e.save(memory.MustParseKey("location.current"), memory.TypeFact, "User lives in Berlin Germany.", 5)
	e.post("c1", user("m1", "I live in Berlin, Germany now."))
	e.tick()
	live := e.live()
	if len(live) != 1 || live[memory.MustParseKey("home.city")].Content() != "User lives in Berlin, Germany" || live[memory.MustParseKey("home.city")].Importance() != 5 {
		t.Fatalf("memories %+v", live)
	}
	events := e.events()
	if !slices.Equal(events[memory.MustParseKey("home.city")], []memory.Op{memory.OpAdd, memory.OpUpdate, memory.OpMerge}) ||
		!slices.Equal(events[memory.MustParseKey("location.current")], []memory.Op{memory.OpAdd, memory.OpDelete}) {
		t.Errorf("events %v", events)
	}
	caused, _ := e.messages.CausedEvents(context.Background(), scope, "m1")
	if len(caused) != 3 {
		t.Errorf("m1 caused %d events, want UPDATE, DELETE and MERGE", len(caused))
	}
}

// keepAll is a refiner that keeps every candidate as proposed.
type keepAll struct{}

func (keepAll) Refine(_ context.Context, in ports.RefineInput) ([]candidate.Decision, ports.LLMUsage, error) {
	out := make([]candidate.Decision, len(in.Candidates))
	for i, c := range in.Candidates {
		out[i] = candidate.Decision{Candidate: c, Verdict: candidate.VerdictKeep}
	}
	return out, ports.LLMUsage{}, nil
}

func TestPipeline_writesAtMostMaxWriteItems(t *testing.T) {
	t.Parallel()
	var cands []candidate.Candidate
	topics := []string{"jazz", "tennis", "sushi", "chess", "hiking", "opera", "tea", "cats", "rowing", "poetry"}
	for _, topic := range topics {
		cands = append(cands, candidate.Candidate{Op: candidate.OpAdd, Type: memory.TypePreference,
			Key: "likes." + topic, Content: "User likes " + topic, Importance: 3, Confidence: 0.9})
	}
	cands = append(cands, candidate.Candidate{Op: candidate.OpAdd, Type: memory.TypeFact,
		Key: "health.diabetes", Content: "User has type 2 diabetes", Importance: 5, Confidence: 0.9})
	e := newEnv(t, envOptions{extractor: stubExtractor{cands: cands}})
	e.post("c1", user("m1", "I like "+strings.Join(topics, ", ")+". I have type 2 diabetes."))
	e.tick()
	r := e.reports.All()
	if len(r) != 2 {
		t.Fatalf("%d runs, want 2: six writes, then the five carried over", len(r))
	}
	if r[0].Written != 6 || r[0].Deferred != 5 || r[1].Written != 5 || r[1].Deferred != 0 {
		t.Errorf("runs wrote %d (deferred %d) then %d (deferred %d), want 6 (5) then 5 (0)", r[0].Written, r[0].Deferred, r[1].Written, r[1].Deferred)
	}
	if first := r[0].Messages[0]; first.Status != conversation.StatusPending || first.SkipReason != conversation.SkipDeferred || first.ProcessAfter.IsZero() {
		t.Errorf("after the first run m1 is %s %q due %v, want PENDING deferred, due again", first.Status, first.SkipReason, first.ProcessAfter)
	}
	if !slices.ContainsFunc(firstRunKeys(t, e, r[0]), func(k string) bool { return k == "health.diabetes" }) {
		t.Errorf("the first run did not write the health fact, the most important one")
	}
	if live := e.live(); len(live) != 11 {
		t.Errorf("%d memories, want all 11: nothing over the limit is lost", len(live))
	}
	if m := e.message("m1"); m.Status != conversation.StatusProcessed || m.SkipReason != "" {
		t.Errorf("m1 ends %s %q, want PROCESSED", m.Status, m.SkipReason)
	}
	if caused, _ := e.messages.CausedEvents(context.Background(), scope, "m1"); len(caused) != 11 {
		t.Errorf("m1 caused %d events, want 11", len(caused))
	}
}

// firstRunKeys are the keys whose first event is among the first run's writes.
func firstRunKeys(t *testing.T, e *env, first extraction.Report) []string {
	t.Helper()
	caused, err := e.messages.CausedEvents(context.Background(), scope, "m1")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for i, ev := range caused {
		if i < first.Written {
			keys = append(keys, ev.Key.String())
		}
	}
	return keys
}

func TestPipeline_noiseKeysAndAssistantFactsAreNeverWritten(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{extractor: stubExtractor{cands: []candidate.Candidate{
		{Op: candidate.OpAdd, Type: memory.TypeFact, Key: "tool-list", Content: "User can use the weather tool", Importance: 3, Confidence: 0.9},
		{Op: candidate.OpAdd, Type: memory.TypeFact, Key: "weather-date_2026-11-30", Content: "It is sunny in Wuhan", Importance: 3, Confidence: 0.9},
		{Op: candidate.OpAdd, Type: memory.TypePreference, Key: "reading.little_prince", Content: "User loves The Little Prince", Importance: 3, Confidence: 0.9},
	}}})
	e.post("c1", assistant("a1", "I recommend The Little Prince."), user("m1", "I will read it this weekend with my daughter."))
	e.tick()
	if live := e.live(); len(live) != 0 {
		t.Errorf("written %v", keysOf(live))
	}
	r := e.reports.All()[0]
	if r.Dropped[string(candidate.ReasonNoiseKey)] != 2 || r.Dropped[extraction.ReasonNotGrounded] != 1 {
		t.Errorf("dropped %v", r.Dropped)
	}
	if m := e.message("m1"); m.Status != conversation.StatusProcessed {
		t.Errorf("m1 %+v", m)
	}
}

func TestPipeline_failuresBackOffAndStopAtMaxAttempts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{
		extractor: stubExtractor{err: fmt.Errorf("llm: chat: %w", ports.ErrUnavailable)},
		opts:      extraction.Options{Retry: retry.Policy{MaxAttempts: 3, BaseDelay: time.Minute}},
	})
	e.post("c1", user("m1", "I am vegetarian."))
	e.tick()
	m := e.message("m1")
	if m.Status != conversation.StatusFailed || m.Attempts != 1 || !strings.Contains(m.Error, "unavailable") ||
		!m.ProcessAfter.Equal(e.clock.Now().Add(time.Minute)) {
		t.Fatalf("after the first failure: %+v", m)
	}
	if n, _ := e.runner.Tick(context.Background(), false); n != 0 {
		t.Error("the poll retried a FAILED message")
	}
	for attempt := 2; attempt <= 3; attempt++ {
		e.clock.Advance(time.Hour)
		if n, err := e.runner.Tick(context.Background(), true); n != 1 || err != nil {
			t.Fatalf("rescan %d: %d, %v", attempt, n, err)
		}
	}
	m = e.message("m1")
	if m.Status != conversation.StatusFailed || m.Attempts != 3 || !m.ProcessAfter.IsZero() {
		t.Errorf("after max attempts: %+v", m)
	}
	e.clock.Advance(24 * time.Hour)
	if n, _ := e.runner.Tick(context.Background(), true); n != 0 {
		t.Error("an exhausted message was retried")
	}
	if live := e.live(); len(live) != 0 {
		t.Errorf("a failed extraction wrote %v", keysOf(live))
	}
}

func TestPipeline_aFailingRefinerFallsBackInsteadOfFailing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{
		refiner:  failingRefiner{},
		fallback: rules.NewRefiner(rules.RefinerOptions{}),
	})
	// The same key: stage 2 has something to decide, so the refiner is called.
	e.save(memory.MustParseKey("music.likes.jazz"), memory.TypePreference, "User loves jazz clubs and blues", 3)
	e.post("c1", user("m1", "I love jazz."))
	e.tick()
	if m := e.message("m1"); m.Status != conversation.StatusProcessed {
		t.Fatalf("m1 %+v", m)
	}
	r := e.reports.All()[0]
	if len(r.Calls) != 3 || r.Calls[1].Err == nil || !r.Calls[2].Fallback {
		t.Errorf("calls %+v, want extract, failed refine, fallback refine", r.Calls)
	}
	if m, ok := e.live()[memory.MustParseKey("music.likes.jazz")]; len(e.live()) != 1 || !ok || m.Content() == "User loves jazz clubs and blues" {
		t.Errorf("memories %v, want the fallback's update of music.likes.jazz", keysOf(e.live()))
	}
}

type failingRefiner struct{}

func (failingRefiner) Refine(context.Context, ports.RefineInput) ([]candidate.Decision, ports.LLMUsage, error) {
	return nil, ports.LLMUsage{Calls: 1}, errors.New("llm: refine: unusable model output")
}

func keysOf(m map[memory.Key]memory.Memory) []memory.Key {
	keys := make([]memory.Key, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, memory.Key.Compare)
	return keys
}

// Every message that taught nothing says why: a fact already remembered is a
// duplicate, a statement with nothing lasting about the user no_fact; a message
// that taught something has its events and no reason.
func TestPipeline_everyMessageSaysWhatItLearnedOrWhyNot(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.post("c1", user("m1", "I'm allergic to peanuts."))
	e.tick()
	e.post("c2", user("m2", "I'm allergic to peanuts."), user("m3", "I'm not allergic to shellfish."), user("m4", "I live in Lisbon."))
	e.tick()
	tests := []struct {
		id, reason string
		events     int
	}{
		{"m1", "", 1},
		{"m2", conversation.SkipDuplicate, 0},
		{"m3", conversation.SkipNoFact, 0},
		{"m4", "", 1},
	}
	for _, tt := range tests {
		m := e.message(tt.id)
		caused, err := e.messages.CausedEvents(context.Background(), scope, tt.id)
		if err != nil {
			t.Fatal(err)
		}
		if m.Status != conversation.StatusProcessed || m.SkipReason != tt.reason || len(caused) != tt.events {
			t.Errorf("%s: %s %q with %d events, want PROCESSED %q with %d", tt.id, m.Status, m.SkipReason, len(caused), tt.reason, tt.events)
		}
	}
}

// Importance means the same whichever extractor proposed it: an allergy rated 2
// is stored at 5, a like rated 5 at 3, a standing rule at least 4.
func TestPipeline_importanceIsHeldToItsFamilysBand(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{extractor: stubExtractor{cands: []candidate.Candidate{
		{Op: candidate.OpAdd, Type: memory.TypeFact, Key: "allergy.peanuts", Content: "User is allergic to peanuts", Importance: 2, Confidence: 0.9},
		{Op: candidate.OpAdd, Type: memory.TypePreference, Key: "music.likes.jazz", Content: "User likes jazz", Importance: 5, Confidence: 0.9},
		{Op: candidate.OpAdd, Type: memory.TypeConstraint, Key: "reply.language", Content: "Always reply in Chinese", Importance: 3, Confidence: 0.9},
	}}})
	e.post("c1", user("m1", "I'm allergic to peanuts, I like jazz, and always reply in Chinese."))
	e.tick()
	live := e.live()
	for key, want := range map[string]int{"allergy.peanuts": 5, "music.likes.jazz": 3, "reply.language": 4} {
		m, ok := live[memory.MustParseKey(key)]
		if !ok || m.Importance() != want {
			t.Errorf("%s: importance %d (stored %v), want %d", key, m.Importance(), ok, want)
		}
	}
}

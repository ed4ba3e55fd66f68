package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"time"

	"engram/adapters/clock"
	"engram/app/contextbuild"
	"engram/app/sessions"
	"engram/domain/memory"
	"engram/domain/session"
	"engram/ports"
	"engram/test/bench/latency"
)

// bigUser holds test/bench/search's 100,000 memories.
var bigUser = memory.Scope{Tenant: "bench", User: "big"}

const turnsPerSession = 16 // 32 messages: past the fold threshold of 30

func runLatency(c config) error {
	ctx := context.Background()
	r, err := newRig(ctx, rigOptions{dir: c.dir, db: c.db, redis: c.redis, clock: clock.System{}, mode: c.retrieve})
	if err != nil {
		return err
	}
	defer r.Close()
	now := time.Now()
	mems, err := r.memories.TopMemories(ctx, bigUser, nil, now, 5000)
	if err != nil {
		return err
	}
	act, err := r.memories.Activity(ctx, bigUser.Tenant, []string{bigUser.User})
	if err != nil {
		return err
	}
	if len(mems) == 0 {
		return fmt.Errorf("bench/big has no memories: build the data set first (go run ./test/bench/search -dir %s -build …)", c.dir)
	}
	rng := rand.New(rand.NewPCG(c.seed, 17))
	refs, err := addSessions(ctx, r, c.sessions, mems, rng)
	if err != nil {
		return err
	}
	fmt.Printf("%s, mode %s: bench/big holds %d memories and %d sessions (%d turns each, folded once)\n", r.shape, c.retrieve, act[bigUser.User].Count, len(refs), turnsPerSession)

	queries := make([]string, 300)
	for i := range queries {
		queries[i] = queryFrom(mems[rng.IntN(len(mems))].Content(), rng)
	}
	call := func(i int) (contextbuild.Result, error) {
		ref := refs[rng.IntN(len(refs))]
		return r.context.Build(ctx, contextbuild.Request{Scope: bigUser, Query: queries[i%len(queries)], SessionID: ref.SessionID, FlowID: ref.FlowID})
	}
	for i := range 30 { // warm-up: the user's lexical index, the statements
		if _, err := call(i); err != nil {
			return err
		}
	}
	runtime.GC()
	stages := map[string][]time.Duration{}
	var chars, items, fallbacks int
	for i := range c.calls {
		res, err := call(i)
		if err != nil {
			return err
		}
		for stage, d := range res.Timings {
			stages[stage] = append(stages[stage], d)
		}
		chars += res.InjectedChars
		items += len(res.Trace.Items)
		if res.Trace.FallbackReason != "" {
			fallbacks++
		}
	}
	fmt.Printf("\ncontext, one call at a time, %d calls (budget 4,000; %.0f characters and %.1f items injected on average; %d answered lexically):\n",
		c.calls, float64(chars)/float64(c.calls), float64(items)/float64(c.calls), fallbacks)
	fmt.Printf("  %-10s %9s %9s %9s\n", "stage", "p50 ms", "p95 ms", "p99 ms")
	for _, stage := range contextbuild.Stages {
		if d := stages[stage]; len(d) > 0 {
			fmt.Printf("  %-10s %9.3f %9.3f %9.3f\n", stage, latency.MS(pct(d, .50)), latency.MS(pct(d, .95)), latency.MS(pct(d, .99)))
		}
	}

	lat, took, err := latency.Hammer(8, 2*c.calls, func(client int) error { _, err := call(client); return err })
	if err != nil {
		return err
	}
	latency.Report("context, 8 clients", len(lat), took, lat)
	// record_exchange goes to a user of its own, so that bench/big's sessions stay
	// as they were built for the next run.
	recorder := memory.Scope{Tenant: "bench", User: "recorder"}
	n := 0
	lat, took, err = latency.Hammer(1, 1000, func(int) error {
		n++
		ref := refs[n%len(refs)]
		_, err := r.sessions.Record(ctx, sessions.Record{Scope: recorder, SessionID: ref.SessionID, FlowID: ref.FlowID,
			Exchange: session.ExchangeInput{UserMessage: queries[n%len(queries)], AssistantMessage: "Noted: " + queries[(n+1)%len(queries)]}})
		return err
	})
	if err != nil {
		return err
	}
	latency.Report("record_exchange, same store, 1 client", len(lat), took, lat) // 50 sessions of another user
	return nil
}

// addSessions gives bench/big its sessions (those SQL already keeps from an
// earlier run are reused), folds them and indexes their messages.
func addSessions(ctx context.Context, r *rig, n int, mems []memory.Memory, rng *rand.Rand) ([]session.Ref, error) {
	have, err := r.store.Sessions(ctx, bigUser, ports.SessionQuery{Limit: ports.MaxSessionList})
	if err != nil {
		return nil, err
	}
	var refs []session.Ref
	for _, m := range have {
		if strings.HasPrefix(m.Ref.SessionID, "bench-s") {
			refs = append(refs, m.Ref)
		}
	}
	if len(refs) >= n {
		return refs[:n], nil
	}
	start := time.Now()
	say := func() string { return "I keep thinking about this: " + mems[rng.IntN(len(mems))].Content() }
	refs = refs[:0]
	for s := range n {
		ref := session.Ref{Scope: bigUser, FlowID: fmt.Sprintf("flow-%d", s%5), SessionID: fmt.Sprintf("bench-s%02d", s)}
		for t := range turnsPerSession {
			_, err := r.sessions.Record(ctx, sessions.Record{Scope: bigUser, SessionID: ref.SessionID, FlowID: ref.FlowID,
				Exchange: session.ExchangeInput{ExchangeID: fmt.Sprintf("t%02d", t), FlowName: ref.FlowID, UserMessage: say(), AssistantMessage: "Noted. " + say()}})
			if err != nil {
				return nil, err
			}
		}
		refs = append(refs, ref)
	}
	recorded := time.Since(start)
	if err := r.waitMessages(ctx, bigUser, int64(2*turnsPerSession*n)); err != nil {
		return nil, err
	}
	folded, err := r.foldAll(ctx)
	if err != nil {
		return nil, err
	}
	start = time.Now()
	if err := r.index(ctx); err != nil {
		return nil, err
	}
	fmt.Printf("build: %d sessions of %d turns recorded in %s, %d folded, their messages indexed in %s\n",
		n, turnsPerSession, recorded.Round(time.Millisecond), folded, time.Since(start).Round(time.Millisecond))
	return refs, nil
}

// queryFrom is a question about two of a memory's longer words.
func queryFrom(content string, rng *rand.Rand) string {
	var words []string
	for _, w := range strings.Fields(content) {
		if w = strings.Trim(w, ".,;:!?"); len(w) > 3 && !strings.EqualFold(w, "user") {
			words = append(words, strings.ToLower(w))
		}
	}
	if len(words) == 0 {
		return "what does the user like"
	}
	a, b := words[rng.IntN(len(words))], words[rng.IntN(len(words))]
	return "what does the user think about " + a + " and " + b
}

func pct(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

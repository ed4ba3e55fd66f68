package extraction_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"engram/adapters/rules"
	"engram/adapters/ulids"
	"engram/app/extraction"
	"engram/app/messages"
	"engram/domain/candidate"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
	"engram/test/contract"
	"engram/test/fakeclock"
	"engram/test/teststore"
)

var (
	scope = memory.Scope{Tenant: "t1", User: "alice"}
	start = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
)

const debounce = 12 * time.Second

// countingExtractor counts Extract calls and what they were given.
type countingExtractor struct {
	ports.Extractor
	mu    sync.Mutex
	calls [][]string // message ids per call
}

func (c *countingExtractor) Extract(ctx context.Context, in ports.ExtractionInput) ([]candidate.Candidate, ports.LLMUsage, error) {
	ids := make([]string, len(in.Messages))
	for i, m := range in.Messages {
		ids[i] = m.ID
	}
	c.mu.Lock()
	c.calls = append(c.calls, ids)
	c.mu.Unlock()
	return c.Extractor.Extract(ctx, in)
}

func (c *countingExtractor) Calls() [][]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.calls)
}

// stubExtractor answers with fixed candidates or an error.
type stubExtractor struct {
	cands []candidate.Candidate
	err   error
}

func (s stubExtractor) Extract(_ context.Context, in ports.ExtractionInput) ([]candidate.Candidate, ports.LLMUsage, error) {
	out := slices.Clone(s.cands)
	for i := range out {
		if out[i].SourceMessageID == "" {
			out[i].SourceMessageID = in.Messages[0].ID
		}
	}
	return out, ports.LLMUsage{Calls: 1}, s.err
}

// env is a pipeline over the SQLite stores with a fixed clock.
type env struct {
	t        *testing.T
	clock    *fakeclock.Clock
	memories ports.MemoryStore
	messages contract.MessageStore
	ingest   *messages.Service
	pipeline *extraction.Pipeline
	runner   *extraction.Runner
	ids      ports.IDs
	reports  *reportLog
}

type envOptions struct {
	extractor ports.Extractor
	refiner   ports.Refiner
	fallback  ports.Refiner
	similar   extraction.SimilarMemories
	gate      extraction.Gate
	budget    ports.LLMBudget
	profiles  extraction.ProfileSlots
	runner    extraction.RunnerOptions
	opts      extraction.Options
	memories  ports.MemoryStore
	messages  contract.MessageStore
	worker    string
	summaries extraction.Summaries
}

// reportLog is an Observer that keeps every report.
type reportLog struct {
	mu      sync.Mutex
	reports []extraction.Report
}

func (l *reportLog) Processed(r extraction.Report) {
	l.mu.Lock()
	l.reports = append(l.reports, r)
	l.mu.Unlock()
}

func (l *reportLog) All() []extraction.Report {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.reports)
}

func newEnv(t *testing.T, o envOptions) *env {
	t.Helper()
	clock := fakeclock.New(start)
	if o.memories == nil {
		stores := teststore.New(t)
		o.memories = stores.Memories
		if o.messages == nil {
			o.messages = stores.Messages
		}
	}
	if o.extractor == nil {
		o.extractor = rules.NewExtractor(rules.ExtractorOptions{})
	}
	if o.refiner == nil {
		o.refiner = rules.NewRefiner(rules.RefinerOptions{})
	}
	if o.worker == "" {
		o.worker = "worker-a"
	}
	ids := ulids.New()
	p := extraction.New(extraction.Deps{
		Extractor: o.extractor, Refiner: o.refiner, FallbackRefiner: o.fallback,
		Memories: o.memories, Messages: o.messages, Clock: clock, IDs: ids, Similar: o.similar,
		Gate: o.gate, Budget: o.budget, Summaries: o.summaries, Profiles: o.profiles,
	}, o.opts)
	log := &reportLog{}
	return &env{
		t: t, clock: clock, memories: o.memories, messages: o.messages, ids: ids, pipeline: p, reports: log,
		ingest: messages.New(o.messages, clock, ids, messages.Options{Debounce: debounce}),
		runner: extraction.NewRunner(o.messages, p, clock, runnerOptions(o, log)),
	}
}

func runnerOptions(o envOptions, log *reportLog) extraction.RunnerOptions {
	r := o.runner
	r.Worker, r.Lease, r.ScanEnabled, r.Observer = o.worker, 5*time.Minute, true, log
	return r
}

// post stores messages of one conversation.
func (e *env) post(conv string, msgs ...conversation.Input) []conversation.Message {
	e.t.Helper()
	return e.postAs(scope, conv, msgs...)
}

// postAs stores messages of one conversation of another user.
func (e *env) postAs(s memory.Scope, conv string, msgs ...conversation.Input) []conversation.Message {
	e.t.Helper()
	for i := range msgs {
		msgs[i].ConversationID = conv
	}
	out, err := e.ingest.PostBatch(context.Background(), messages.PostBatch{Scope: s, Messages: msgs})
	if err != nil {
		e.t.Fatalf("post: %v", err)
	}
	stored := make([]conversation.Message, len(out))
	for i, p := range out {
		stored[i] = p.Message
	}
	return stored
}

func user(id, text string) conversation.Input {
	return conversation.Input{MessageID: id, Role: "user", Content: text}
}

func assistant(id, text string) conversation.Input {
	return conversation.Input{MessageID: id, Role: "assistant", Content: text}
}

// tick lets the debounce pass and runs the worker once.
func (e *env) tick() int {
	e.t.Helper()
	e.clock.Advance(debounce + time.Second)
	n, err := e.runner.Tick(context.Background(), false)
	if err != nil {
		e.t.Fatalf("tick: %v", err)
	}
	return n
}

func (e *env) message(id string) conversation.Message {
	e.t.Helper()
	return e.messageOf(scope, id)
}

func (e *env) messageOf(s memory.Scope, id string) conversation.Message {
	e.t.Helper()
	m, err := e.messages.Message(context.Background(), s, id)
	if err != nil {
		e.t.Fatalf("message %s: %v", id, err)
	}
	return m
}

func (e *env) live() map[memory.Key]memory.Memory {
	e.t.Helper()
	page, err := e.memories.List(context.Background(), scope, ports.MemoryQuery{Limit: 1000, Now: e.clock.Now()})
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[memory.Key]memory.Memory{}
	for _, m := range page.Items {
		out[m.Key()] = m
	}
	return out
}

// events is every event of the user, by key, in order.
func (e *env) events() map[memory.Key][]memory.Op {
	e.t.Helper()
	page, err := e.memories.List(context.Background(), scope, ports.MemoryQuery{Limit: 1000, IncludeInactive: true, Now: e.clock.Now()})
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[memory.Key][]memory.Op{}
	for _, m := range page.Items {
		hist, err := e.memories.History(context.Background(), scope, m.Key())
		if err != nil {
			e.t.Fatal(err)
		}
		for _, ev := range hist {
			out[m.Key()] = append(out[m.Key()], ev.Op)
		}
	}
	return out
}

func countEvents(events map[memory.Key][]memory.Op) int {
	n := 0
	for _, ops := range events {
		n += len(ops)
	}
	return n
}

// save writes a memory as the tools channel would.
func (e *env) save(key memory.Key, typ memory.Type, content string, importance int) {
	e.t.Helper()
	d, err := memory.ParseDraft(memory.DraftInput{Type: string(typ), Content: content, Importance: &importance}, memory.Source{Channel: memory.ChannelTool})
	if err != nil {
		e.t.Fatal(err)
	}
	_, err = e.memories.Update(context.Background(), scope, key, func(cur *memory.Memory) (memory.Change, error) {
		m, err := memory.New(e.ids.New(), scope, key, d, memory.Policy{}, e.clock.Now())
		if err != nil {
			return memory.Change{}, err
		}
		return memory.Change{Memory: m, Event: memory.NewEvent(e.ids.New(), memory.OpAdd, nil, m)}, nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

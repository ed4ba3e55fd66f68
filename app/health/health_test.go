package health

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"engram/domain/candidate"
	"engram/ports"
	"engram/test/fakeclock"
)

func TestAssess_lastCallsDecide(t *testing.T) {
	t.Parallel()
	tests := []struct {
		failures, downAfter int
		want                State
	}{
		{0, 3, Up},
		{1, 3, Degraded},
		{2, 3, Degraded},
		{3, 3, Down},
		{9, 3, Down},
		{0, 0, Up},
		{50, 0, Degraded}, // never down from calls (SQL: a full disk)
	}
	for _, tt := range tests {
		if got := Assess(tt.failures, tt.downAfter); got != tt.want {
			t.Errorf("Assess(%d failures, down after %d) = %s, want %s", tt.failures, tt.downAfter, got, tt.want)
		}
	}
}

func TestRecorder_degradesThenDownThenRecoversOnASuccess(t *testing.T) {
	t.Parallel()
	clk := fakeclock.New(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	r := NewRecorder(clk, map[string]int{Embedder: 3})
	if st := r.Status(Embedder); st.State != Up || st.Detail() != "" {
		t.Fatalf("before any call: %+v", st)
	}
	boom := errors.New("llm: embed: HTTP 500: overloaded")
	r.Observe(Embedder, boom)
	if st := r.Status(Embedder); st.State != Degraded || st.Failures != 1 || !strings.Contains(st.Detail(), "overloaded") {
		t.Errorf("after one failure: %+v %q", st, st.Detail())
	}
	clk.Advance(time.Second)
	r.Observe(Embedder, boom)
	r.Observe(Embedder, boom)
	st := r.Status(Embedder)
	if st.State != Down || st.Failures != 3 {
		t.Errorf("after three failures: %+v", st)
	}
	if want := "3 calls failed in a row, the last at 2026-12-01T09:00:01Z: llm: embed: HTTP 500: overloaded"; st.Detail() != want {
		t.Errorf("detail = %q, want %q", st.Detail(), want)
	}
	r.Observe(Embedder, nil)
	if st := r.Status(Embedder); st.State != Up || st.Failures != 0 || st.Err != "" || st.LastSuccess.IsZero() {
		t.Errorf("after a success: %+v", st)
	}
	r.Observe("unknown", boom) // not recorded: no panic, no state
	if st := r.Status("unknown"); st.State != Up {
		t.Errorf("an unrecorded dependency: %+v", st)
	}
}

func TestCounts_callerDeadlinesAndCancellationsAreNotTheDependencys(t *testing.T) {
	t.Parallel()
	// The calls "started" two seconds ago: one caller allowed them 150 ms, another
	// a little over two seconds.
	started := time.Now().Add(-2 * time.Second)
	live := context.Background()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	short, c1 := context.WithDeadline(context.Background(), started.Add(150*time.Millisecond))
	defer c1()
	long, c2 := context.WithDeadline(context.Background(), time.Now().Add(10*time.Millisecond))
	defer c2()
	expire := func(ctx context.Context) context.Context { <-ctx.Done(); return ctx }
	boom := errors.New("boom")
	tests := []struct {
		name string
		ctx  context.Context
		err  error
		want bool
	}{
		{"a success", live, nil, true},
		{"a failure while the caller waits", live, boom, true},
		{"the caller cancelled", cancelled, context.Canceled, false},
		{"a search's short budget ran out", expire(short), context.DeadlineExceeded, false},
		{"a budget of seconds ran out: the dependency is slow", expire(long), context.DeadlineExceeded, true},
	}
	for _, tt := range tests {
		if got := Counts(tt.ctx, started, tt.err); got != tt.want {
			t.Errorf("%s: Counts = %v, want %v", tt.name, got, tt.want)
		}
	}
}

type fakeEmbedder struct{ err error }

func (f *fakeEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if f.err != nil {
		return nil, f.err
	}
	return make([][]float32, len(texts)), nil
}
func (*fakeEmbedder) Model() string  { return "fake" }
func (*fakeEmbedder) Dimension() int { return 1 }

type unusable struct{}

func (unusable) Error() string   { return "llm: extract: unusable model output" }
func (unusable) BadOutput() bool { return true }

type fakeExtractor struct{ err error }

func (f fakeExtractor) Extract(context.Context, ports.ExtractionInput) ([]candidate.Candidate, ports.LLMUsage, error) {
	return nil, ports.LLMUsage{Calls: 1}, f.err
}

type fakeRefiner struct{ err error }

func (f fakeRefiner) Refine(context.Context, ports.RefineInput) ([]candidate.Decision, ports.LLMUsage, error) {
	return nil, ports.LLMUsage{}, f.err
}

func TestDecorators_reportEveryCallOfTheirDependency(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := NewRecorder(fakeclock.New(time.Now()), map[string]int{Embedder: 3, LLM: 3})

	fe := &fakeEmbedder{err: errors.New("connection refused")}
	emb := r.Embedder(fe)
	if _, err := emb.Embed(ctx, []string{"a"}); err == nil {
		t.Fatal("the decorator swallowed the error")
	}
	if st := r.Status(Embedder); st.State != Degraded || st.Err != "connection refused" {
		t.Errorf("embedder after a failure: %+v", st)
	}
	fe.err = nil
	if vs, err := emb.Embed(ctx, []string{"a", "b"}); err != nil || len(vs) != 2 {
		t.Fatalf("embed through the decorator: %v, %d vectors", err, len(vs))
	}
	if st := r.Status(Embedder); st.State != Up {
		t.Errorf("embedder after a success: %+v", st)
	}
	if emb.Model() != "fake" || emb.Dimension() != 1 {
		t.Error("the decorator hides the embedder's model or dimension")
	}

	if _, _, err := r.Extractor(fakeExtractor{err: errors.New("HTTP 503")}).Extract(ctx, ports.ExtractionInput{}); err == nil {
		t.Fatal("the extractor decorator swallowed the error")
	}
	if st := r.Status(LLM); st.State != Degraded {
		t.Errorf("llm after a failed extraction: %+v", st)
	}
	// An answer the adapter could not use still means the endpoint answered.
	_, _, _ = r.Refiner(fakeRefiner{err: unusable{}}).Refine(ctx, ports.RefineInput{})
	if st := r.Status(LLM); st.State != Up {
		t.Errorf("llm after an unusable but delivered answer: %+v", st)
	}
}

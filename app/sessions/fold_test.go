package sessions_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"engram/app/sessions"
	"engram/domain/session"
	"engram/ports"
)

// joiner summarises by joining the previous summary and the slice's contents with
// "|", so a test can see exactly what each fold took.
type joiner struct {
	mu    sync.Mutex
	calls []ports.SummaryInput
	err   error
}

func (j *joiner) Summarize(_ context.Context, in ports.SummaryInput) (string, ports.LLMUsage, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.calls = append(j.calls, in)
	if j.err != nil {
		return "", ports.LLMUsage{Calls: 1}, j.err
	}
	parts := []string{}
	if in.Previous != "" {
		parts = append(parts, in.Previous)
	}
	for _, m := range in.Messages {
		parts = append(parts, m.Content)
	}
	return strings.Join(parts, "|"), ports.LLMUsage{Calls: 1}, nil
}

type outcomes struct {
	mu    sync.Mutex
	got   []string
	refs  []session.Ref
	calls int // the model calls the observer was told of
}

func (o *outcomes) Folded(ref session.Ref, outcome string, _ time.Duration, usage ports.LLMUsage) {
	o.mu.Lock()
	o.got = append(o.got, outcome)
	o.refs = append(o.refs, ref)
	o.calls += usage.Calls
	o.mu.Unlock()
}

func newFolder(f fixture, summarizer, fallback ports.Summarizer, obs *outcomes, policy session.Policy) *sessions.Folder {
	opts := sessions.FolderOptions{Holder: "folder-1", Policy: policy}
	if obs != nil {
		opts.Observer = obs
	}
	return sessions.NewFolder([]ports.SessionFolds{f.store}, summarizer, fallback, f.clock, opts)
}

func TestFolder_foldsRecursivelyAndKeepsTheMostRecentTurns(t *testing.T) {
	t.Parallel()
	policy := session.Policy{Threshold: 6, Keep: 2}
	f := newFixture(t, policy)
	sum, obs := &joiner{}, &outcomes{}
	folder := newFolder(f, sum, nil, obs, policy)
	ctx := context.Background()
	for i := 1; i <= 3; i++ {
		f.record(t, "s", "flow", fmt.Sprintf("x%d", i), fmt.Sprintf("u%d", i))
	}
	if n, err := folder.FoldDue(ctx); err != nil || n != 1 {
		t.Fatalf("folded %d, %v", n, err)
	}
	v, _ := f.svc.Get(ctx, sessions.Get{Scope: scope, SessionID: "s", FlowID: "flow"})
	if v.Summary.Text != "u1|answer to u1|u2|answer to u2" || v.Summary.Version != 1 || len(v.Messages) != 2 || v.Messages[0].Content != "u3" {
		t.Fatalf("after the first fold: summary %q, messages %+v", v.Summary.Text, v.Messages)
	}
	for i := 4; i <= 5; i++ {
		f.record(t, "s", "flow", fmt.Sprintf("x%d", i), fmt.Sprintf("u%d", i))
	}
	if n, _ := folder.FoldDue(ctx); n != 1 {
		t.Fatalf("second fold: %d", n)
	}
	if got := sum.calls[1].Previous; got != "u1|answer to u1|u2|answer to u2" {
		t.Errorf("the second fold was not given the first summary: %q", got)
	}
	v, _ = f.svc.Get(ctx, sessions.Get{Scope: scope, SessionID: "s", FlowID: "flow"})
	if !strings.HasSuffix(v.Summary.Text, "|u4|answer to u4") || v.Summary.Version != 2 || len(v.Messages) != 2 {
		t.Errorf("after the second fold: %q, %d messages", v.Summary.Text, len(v.Messages))
	}
	if n, _ := folder.FoldDue(ctx); n != 0 || len(sum.calls) != 2 {
		t.Errorf("folded again below the threshold: %d, %d calls", n, len(sum.calls))
	}
	if !slices.Equal(obs.got, []string{sessions.FoldDone, sessions.FoldDone}) {
		t.Errorf("outcomes %v", obs.got)
	}
	// The observer hears whose session it was and what the summarizer cost.
	want := session.Ref{Scope: scope, FlowID: "flow", SessionID: "s"}
	if len(obs.refs) != 2 || obs.refs[0] != want || obs.refs[1] != want || obs.calls != 2 {
		t.Errorf("observed sessions %v and %d model calls, want %v twice and 2", obs.refs, obs.calls, want)
	}
}

func TestFolder_theOfflineSummarizerWritesAFoldTheModelCouldNot(t *testing.T) {
	t.Parallel()
	policy := session.Policy{Threshold: 4, Keep: 2}
	f := newFixture(t, policy)
	broken, offline, obs := &joiner{err: errors.New("model timed out")}, &joiner{}, &outcomes{}
	folder := newFolder(f, broken, offline, obs, policy)
	f.record(t, "s", "flow", "x1", "u1")
	f.record(t, "s", "flow", "x2", "u2")
	if n, err := folder.FoldDue(context.Background()); err != nil || n != 1 {
		t.Fatalf("folded %d, %v", n, err)
	}
	if len(broken.calls) != 1 || len(offline.calls) != 1 || !slices.Equal(obs.got, []string{sessions.FoldFallback}) {
		t.Errorf("calls %d/%d, outcomes %v", len(broken.calls), len(offline.calls), obs.got)
	}
	// The failed call is a cost too, and so is the fallback's.
	if obs.calls != 2 {
		t.Errorf("observed %d model calls, want the failed one and the fallback's", obs.calls)
	}
}

func TestFolder_aFailedFoldIsTriedAgainAfterTheRetryDelay(t *testing.T) {
	t.Parallel()
	policy := session.Policy{Threshold: 4, Keep: 2, RetryDelay: time.Minute}
	f := newFixture(t, policy)
	sum, obs := &joiner{err: errors.New("model down")}, &outcomes{}
	folder := newFolder(f, sum, nil, obs, policy)
	ctx := context.Background()
	f.record(t, "s", "flow", "x1", "u1")
	f.record(t, "s", "flow", "x2", "u2")
	if n, _ := folder.FoldDue(ctx); n != 0 || !slices.Equal(obs.got, []string{sessions.FoldFailed}) {
		t.Fatalf("folded %d, outcomes %v", n, obs.got)
	}
	f.clock.Advance(59 * time.Second)
	folder.FoldDue(ctx)
	if len(sum.calls) != 1 {
		t.Fatalf("tried again before the delay: %d calls", len(sum.calls))
	}
	sum.err = nil
	f.clock.Advance(time.Second)
	if n, _ := folder.FoldDue(ctx); n != 1 || len(sum.calls) != 2 {
		t.Fatalf("after the delay: folded %d, %d calls", n, len(sum.calls))
	}
	v, _ := f.svc.Get(ctx, sessions.Get{Scope: scope, SessionID: "s", FlowID: "flow"})
	if v.Summary.Text == "" || len(v.Messages) != 2 {
		t.Errorf("the session after the retry: %+v", v)
	}
}

// Twenty turns recorded through the use case while folders fold: every message
// ends once in the summary or in the session.
func TestFolder_twentyTurnsRacingFoldsLoseAndDuplicateNothing(t *testing.T) {
	t.Parallel()
	policy := session.Policy{Threshold: 6, Keep: 2}
	f := newFixture(t, policy)
	sum := &joiner{}
	folders := []*sessions.Folder{newFolder(f, sum, nil, nil, policy), sessions.NewFolder([]ports.SessionFolds{f.store}, sum, nil, f.clock,
		sessions.FolderOptions{Holder: "folder-2", Policy: policy})}
	ctx := context.Background()
	var want []string
	var wg sync.WaitGroup
	for i := range 20 {
		user := fmt.Sprintf("u%02d", i)
		want = append(want, user, "answer to "+user)
		wg.Go(func() { f.record(t, "s", "flow", "x"+user, user) })
	}
	for _, folder := range folders {
		wg.Go(func() {
			for range 10 {
				if _, err := folder.FoldDue(ctx); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	for {
		n, err := folders[0].FoldDue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	v, _ := f.svc.Get(ctx, sessions.Get{Scope: scope, SessionID: "s", FlowID: "flow"})
	var got []string
	if v.Summary.Text != "" {
		got = strings.Split(v.Summary.Text, "|")
	}
	for _, m := range v.Messages {
		got = append(got, m.Content)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("the session holds\n%v\nwant\n%v", got, want)
	}
	if v.Meta.MessageCount != 40 || int(v.Summary.Version) != len(sum.calls) {
		t.Errorf("meta %+v, version %d after %d summaries", v.Meta, v.Summary.Version, len(sum.calls))
	}
}

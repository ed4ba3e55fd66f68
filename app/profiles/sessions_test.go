package profiles_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"engram/app/profiles"
	"engram/domain/memory"
	"engram/domain/profile"
	"engram/domain/session"
	"engram/ports"
)

// The turns an agent records are a source of the profile: each flow's turns are
// its runs (joined with workflow_used events, counted once), and each session
// is a conversation.
func TestRefresh_takesFavouriteWorkflowsAndConversationsFromSessions(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, profiles.Options{})
	store := f.stores.Sessions(f.clock, session.Limits{})
	svc := f.with(func(d *profiles.Deps) { d.Sessions = store })
	ctx := context.Background()
	record := func(flow, name, id string, turns int) {
		t.Helper()
		ref := session.Ref{Scope: dev, FlowID: flow, SessionID: id}
		for i := range turns {
			f.clock.Advance(time.Second)
			x, err := session.NewExchange(ref, session.ExchangeInput{ExchangeID: fmt.Sprint(i), FlowName: name, UserMessage: "q", AssistantMessage: "a"}, "", f.clock.Now())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := store.AppendExchange(ctx, ports.SessionAppend{Exchange: x}); err != nil {
				t.Fatal(err)
			}
		}
	}
	record("weekly", "周报生成", "s1", 4)
	record("weekly", "周报生成", "s2", 2)
	record("assign", "任务分配", "s3", 3)
	// The agent also reports two runs of the weekly flow: the sessions saw them.
	for _, id := range []string{"e1", "e2"} {
		if _, _, err := svc.RecordActivity(ctx, profiles.RecordActivity{Scope: dev,
			Event: profile.ActivityInput{EventID: id, Kind: "workflow_used", FlowID: "weekly", At: f.clock.Now()}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := svc.Refresh(ctx, dev); err != nil {
		t.Fatal(err)
	}
	p, err := f.profiles.Profile(ctx, dev)
	if err != nil {
		t.Fatal(err)
	}
	d := p.State().Derived
	want := []profile.WorkflowCount{{FlowID: "weekly", FlowName: "周报生成", Count: 6}, {FlowID: "assign", FlowName: "任务分配", Count: 3}}
	if !reflect.DeepEqual(d.FavouriteWorkflows, want) || d.WorkflowsUsed != 9 || d.Conversations != 3 || !d.LastConversationAt.Equal(f.clock.Now()) {
		t.Errorf("derived favourites %v, %d runs, %d conversations, last %v; want %v, 9, 3, %v",
			d.FavouriteWorkflows, d.WorkflowsUsed, d.Conversations, d.LastConversationAt, want, f.clock.Now())
	}
}

// failingQueue refuses marks while fail is set.
type failingQueue struct {
	ports.ProfileRefreshQueue
	fail bool
}

func (q *failingQueue) MarkProfileStale(ctx context.Context, sc memory.Scope, now time.Time, debounce, maxWait time.Duration) error {
	if q.fail {
		return ports.ErrUnavailable
	}
	return q.ProfileRefreshQueue.MarkProfileStale(ctx, sc, now, debounce, maxWait)
}

// Recorded turns mark their users' profiles once per flush, however many turns
// they were; a mark that could not be written is written by a later flush.
func TestMarks_coalesceTurnsIntoOneMarkPerUser(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, profiles.Options{RefreshDebounce: time.Minute})
	queue := &failingQueue{ProfileRefreshQueue: f.profiles, fail: true}
	svc := f.with(func(d *profiles.Deps) { d.Refreshes = queue })
	marks := profiles.NewMarks(svc, profiles.MarksOptions{})
	ctx := context.Background()
	other := memory.Scope{Tenant: "acme", User: "ops"}
	for range 3 {
		marks.ExchangeRecorded(dev)
	}
	marks.ExchangeRecorded(other)
	if n, err := marks.Flush(ctx); n != 0 || !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("flush with the queue down: %d %v", n, err)
	}
	queue.fail = false
	if n, err := marks.Flush(ctx); n != 2 || err != nil {
		t.Fatalf("flush: %d marks (%v), want one per user", n, err)
	}
	if n, err := marks.Flush(ctx); n != 0 || err != nil {
		t.Fatalf("a flush with nothing noted wrote %d (%v)", n, err)
	}
	claimed, err := f.profiles.ClaimStaleProfiles(ctx, "w", f.clock.Now().Add(2*time.Minute), time.Minute, 10)
	if err != nil || len(claimed) != 2 {
		t.Errorf("claimed %v %v, want both users' refreshes", claimed, err)
	}
}

// Run writes the marks noted before its context ends.
func TestMarks_runFlushesOnStop(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, profiles.Options{RefreshDebounce: time.Minute})
	marks := profiles.NewMarks(f.svc, profiles.MarksOptions{Interval: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); marks.Run(ctx) }()
	marks.ExchangeRecorded(dev)
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10s of its context ending")
	}
	claimed, err := f.profiles.ClaimStaleProfiles(context.Background(), "w", f.clock.Now().Add(2*time.Minute), time.Minute, 10)
	if err != nil || len(claimed) != 1 || claimed[0].Scope != dev {
		t.Errorf("claimed %v %v, want the mark noted before the stop", claimed, err)
	}
}

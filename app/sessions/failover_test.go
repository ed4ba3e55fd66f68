package sessions_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"engram/adapters/sqlstore"
	"engram/adapters/ulids"
	"engram/app/sessions"
	"engram/domain/memory"
	"engram/domain/session"
	"engram/ports"
	"engram/test/fakeclock"
	"engram/test/teststore"
)

// switchable is a primary that can be taken down: every call then fails as an
// unreachable Redis does.
type switchable struct {
	*sqlstore.SessionStore
	down atomic.Bool
}

var errDown = fmt.Errorf("connection refused: %w", ports.ErrUnavailable)

func (s *switchable) Ping(context.Context) error { return s.err() }

func (s *switchable) err() error {
	if s.down.Load() {
		return errDown
	}
	return nil
}

func (s *switchable) AppendExchange(ctx context.Context, a ports.SessionAppend) (ports.SessionAppended, error) {
	if err := s.err(); err != nil {
		return ports.SessionAppended{}, err
	}
	return s.SessionStore.AppendExchange(ctx, a)
}

func (s *switchable) Session(ctx context.Context, ref session.Ref, limit int) (session.View, error) {
	if err := s.err(); err != nil {
		return session.View{}, err
	}
	return s.SessionStore.Session(ctx, ref, limit)
}

func (s *switchable) Sessions(ctx context.Context, scope memory.Scope, q ports.SessionQuery) ([]session.Meta, error) {
	if err := s.err(); err != nil {
		return nil, err
	}
	return s.SessionStore.Sessions(ctx, scope, q)
}

func (s *switchable) ExportSession(ctx context.Context, ref session.Ref) (session.State, error) {
	if err := s.err(); err != nil {
		return session.State{}, err
	}
	return s.SessionStore.ExportSession(ctx, ref)
}

func (s *switchable) ReplaceSession(ctx context.Context, st session.State, rev int64) error {
	if err := s.err(); err != nil {
		return err
	}
	return s.SessionStore.ReplaceSession(ctx, st, rev)
}

type failoverEvents struct {
	mu        sync.Mutex
	fallbacks map[string]int
	states    []bool
	drained   int
}

func (e *failoverEvents) Fallback(op string) { e.mu.Lock(); e.fallbacks[op]++; e.mu.Unlock() }
func (e *failoverEvents) PrimaryUp(up bool) {
	e.mu.Lock()
	e.states = append(e.states, up)
	e.mu.Unlock()
}
func (e *failoverEvents) Drained(n int) { e.mu.Lock(); e.drained += n; e.mu.Unlock() }

// While the primary is down every call is served by the secondary and none
// fails; once it is back new turns go to it, the turns recorded meanwhile are
// moved into it, and reads merge both until they are.
func TestFailover_servesFromTheSecondaryAndMovesItsSessionsBack(t *testing.T) {
	t.Parallel()
	clk := fakeclock.New(start)
	primary := &switchable{SessionStore: teststore.New(t).Sessions(clk, session.Limits{MaxHistory: 100})}
	secondary := teststore.New(t).Sessions(clk, session.Limits{MaxHistory: 100})
	events := &failoverEvents{fallbacks: map[string]int{}}
	fo := sessions.NewFailover(primary, secondary, sessions.FailoverOptions{Observer: events})
	svc := sessions.New(sessions.Deps{Store: fo, Conversations: &turns{}, Clock: clk, IDs: ulids.New()}, sessions.Options{})
	ctx := context.Background()
	record := func(id string) {
		t.Helper()
		clk.Advance(1e9)
		if _, err := svc.Record(ctx, sessions.Record{Scope: scope, SessionID: "s", FlowID: "f",
			Exchange: session.ExchangeInput{ExchangeID: id, UserMessage: "u " + id, AssistantMessage: "a " + id}}); err != nil {
			t.Fatalf("record %s: %v", id, err)
		}
	}
	read := func() []string {
		t.Helper()
		v, err := svc.Get(ctx, sessions.Get{Scope: scope, SessionID: "s", FlowID: "f"})
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		var ids []string
		for _, m := range v.Messages {
			ids = append(ids, m.ExchangeID)
		}
		return slices.Compact(ids)
	}

	fo.Step(ctx) // finds the secondary empty
	record("before")
	primary.down.Store(true)
	record("during-1")
	record("during-2")
	if got := read(); !slices.Equal(got, []string{"during-1", "during-2"}) {
		t.Fatalf("while down the session reads %v", got)
	}
	if list, err := svc.List(ctx, sessions.List{Scope: scope}); err != nil || len(list) != 1 {
		t.Fatalf("while down the listing is %v, %v", list, err)
	}
	if err := fo.Check(ctx); err == nil {
		t.Error("the check says up while the primary is down")
	}
	if err := svc.Delete(ctx, sessions.Delete{Scope: scope, SessionID: "s", FlowID: "f"}); !errors.Is(err, ports.ErrUnavailable) {
		t.Errorf("delete while down: %v", err)
	}
	fo.Step(ctx) // the probe fails: still down
	if !fo.PrimaryDown() {
		t.Fatal("a failed probe brought the primary back")
	}

	primary.down.Store(false)
	fo.Step(ctx) // the probe answers, and the session recorded meanwhile moves back
	record("after")
	if fo.PrimaryDown() || fo.Check(ctx) != nil {
		t.Fatal("the primary is not back")
	}
	if got := read(); !slices.Equal(got, []string{"before", "during-1", "during-2", "after"}) {
		t.Fatalf("after recovery the session reads %v", got)
	}
	if refs, _ := secondary.SessionRefs(ctx, 10); len(refs) != 0 {
		t.Fatalf("the secondary still holds %v", refs)
	}
	v, err := primary.SessionStore.Session(ctx, session.Ref{Scope: scope, FlowID: "f", SessionID: "s"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range v.Messages {
		ids = append(ids, m.ID)
	}
	want := []string{"before/user", "before/assistant", "during-1/user", "during-1/assistant", "during-2/user", "during-2/assistant", "after/user", "after/assistant"}
	if !slices.Equal(ids, want) || v.Meta.MessageCount != 8 {
		t.Fatalf("the primary holds %v (count %d), want %v", ids, v.Meta.MessageCount, want)
	}
	// A retry of a turn recorded during the outage is still recognised.
	if r, err := svc.Record(ctx, sessions.Record{Scope: scope, SessionID: "s", FlowID: "f",
		Exchange: session.ExchangeInput{ExchangeID: "during-1", UserMessage: "u during-1", AssistantMessage: "a during-1"}}); err != nil || !r.Duplicate {
		t.Errorf("retry after the move: %+v %v", r, err)
	}
	if events.fallbacks["append"] != 2 || events.fallbacks["read"] == 0 || !slices.Equal(events.states, []bool{false, true}) || events.drained != 1 {
		t.Errorf("events %+v", events)
	}
	if err := svc.Delete(ctx, sessions.Delete{Scope: scope, SessionID: "s", FlowID: "f"}); err != nil {
		t.Errorf("delete after recovery: %v", err)
	}
}

// A session recorded only in the secondary (a session that began during the
// outage) moves whole, summary included.
func TestFailover_movesASessionBegunDuringTheOutage(t *testing.T) {
	t.Parallel()
	clk := fakeclock.New(start)
	primary := &switchable{SessionStore: teststore.New(t).Sessions(clk, session.Limits{})}
	secondary := teststore.New(t).Sessions(clk, session.Limits{})
	fo := sessions.NewFailover(primary, secondary, sessions.FailoverOptions{})
	ctx := context.Background()
	ref := session.Ref{Scope: scope, FlowID: "f", SessionID: "new"}
	primary.down.Store(true)
	for i := range 3 {
		x, _ := session.NewExchange(ref, session.ExchangeInput{ExchangeID: fmt.Sprint(i), UserMessage: "u", AssistantMessage: "a"}, "", clk.Now())
		if _, err := fo.AppendExchange(ctx, ports.SessionAppend{Exchange: x, FoldAt: 4}); err != nil {
			t.Fatal(err)
		}
	}
	claimed, _ := secondary.ClaimFolds(ctx, ports.FoldClaim{Holder: "w", Now: clk.Now(), Lease: 60e9, Limit: 1})
	plan, _ := session.Policy{Threshold: 4, Keep: 2}.Plan(claimed[0])
	if err := secondary.ApplyFold(ctx, plan.Fold("folded during the outage", "w", 4, clk.Now())); err != nil {
		t.Fatal(err)
	}
	primary.down.Store(false)
	fo.Step(ctx)
	fo.Step(ctx)
	v, err := primary.SessionStore.Session(ctx, ref, 0)
	if err != nil || v.Summary.Text != "folded during the outage" || len(v.Messages) != 2 || v.Meta.MessageCount != 6 {
		t.Fatalf("moved %+v, %v", v, err)
	}
	if _, err := secondary.Session(ctx, ref, 0); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("still in the secondary: %v", err)
	}
}

// Sessions another process recorded in the secondary are read together with the
// primary's part until they are moved: a read never misses a turn.
func TestFailover_readsMergeBothStoresUntilTheSecondaryIsEmpty(t *testing.T) {
	t.Parallel()
	clk := fakeclock.New(start)
	primary := &switchable{SessionStore: teststore.New(t).Sessions(clk, session.Limits{})}
	secondary := teststore.New(t).Sessions(clk, session.Limits{})
	ctx := context.Background()
	ref := session.Ref{Scope: scope, FlowID: "f", SessionID: "s"}
	for i, store := range []ports.SessionStore{primary, secondary, primary} {
		clk.Advance(1e9)
		x, _ := session.NewExchange(ref, session.ExchangeInput{ExchangeID: fmt.Sprint(i), UserMessage: "u", AssistantMessage: "a"}, "", clk.Now())
		if _, err := store.AppendExchange(ctx, ports.SessionAppend{Exchange: x}); err != nil {
			t.Fatal(err)
		}
	}
	fo := sessions.NewFailover(primary, secondary, sessions.FailoverOptions{})
	exchanges := func() []string {
		v, err := fo.Session(ctx, ref, 0)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range v.Messages {
			out = append(out, m.ExchangeID)
		}
		return slices.Compact(out)
	}
	if got := exchanges(); !slices.Equal(got, []string{"0", "1", "2"}) {
		t.Fatalf("before the move the read gives %v", got)
	}
	if list, _ := fo.Sessions(ctx, scope, ports.SessionQuery{}); len(list) != 1 || list[0].MessageCount != 6 || list[0].Held != 6 {
		t.Fatalf("before the move the listing gives %+v", list)
	}
	fo.Step(ctx)
	if got := exchanges(); !slices.Equal(got, []string{"0", "1", "2"}) {
		t.Fatalf("after the move the read gives %v", got)
	}
	if _, err := secondary.Session(ctx, ref, 0); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("still in the secondary: %v", err)
	}
}

func (s *switchable) UsersAfter(ctx context.Context, tenant, after string, limit int) ([]string, error) {
	if err := s.err(); err != nil {
		return nil, err
	}
	return s.SessionStore.UsersAfter(ctx, tenant, after, limit)
}

func (s *switchable) Activity(ctx context.Context, tenant string, users []string) (map[string]ports.Activity, error) {
	if err := s.err(); err != nil {
		return nil, err
	}
	return s.SessionStore.Activity(ctx, tenant, users)
}

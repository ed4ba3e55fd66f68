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

	"engram/adapters/sqlstore"
	"engram/adapters/ulids"
	"engram/app/sessions"
	"engram/domain/conversation"
	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/domain/session"
	"engram/ports"
	"engram/test/fakeclock"
	"engram/test/teststore"
)

var (
	scope = memory.Scope{Tenant: "t1", User: "u1"}
	start = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
)

// turns records what the extraction channel was given.
type turns struct {
	mu   sync.Mutex
	msgs []conversation.Input
	err  error
}

func (c *turns) RecordTurn(_ context.Context, _ memory.Scope, msgs []conversation.Input) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	c.msgs = append(c.msgs, msgs...)
	return nil
}

type wakes struct {
	mu sync.Mutex
	n  int
}

func (w *wakes) Notify() { w.mu.Lock(); w.n++; w.mu.Unlock() }

type fixture struct {
	svc   *sessions.Service
	store *sqlstore.SessionStore
	turns *turns
	wakes *wakes
	clock *fakeclock.Clock
}

func newFixture(t *testing.T, policy session.Policy) fixture {
	t.Helper()
	clk := fakeclock.New(start)
	store := teststore.New(t).Sessions(clk, session.Limits{MaxHistory: 100})
	f := fixture{store: store, turns: &turns{}, wakes: &wakes{}, clock: clk}
	f.svc = sessions.New(sessions.Deps{Store: store, Conversations: f.turns, Clock: clk, IDs: ulids.New(), Notifier: f.wakes},
		sessions.Options{Policy: policy})
	return f
}

func (f fixture) record(t *testing.T, sessionID, flowID, exchangeID, user string) sessions.Recorded {
	t.Helper()
	r, err := f.svc.Record(context.Background(), sessions.Record{Scope: scope, SessionID: sessionID, FlowID: flowID,
		Exchange: session.ExchangeInput{ExchangeID: exchangeID, UserMessage: user, AssistantMessage: "answer to " + user}})
	if err != nil {
		t.Fatalf("record %s: %v", exchangeID, err)
	}
	return r
}

func TestRecord_storesTheTurnInTheSessionAndTheExtractionChannel(t *testing.T) {
	t.Parallel()
	f := newFixture(t, session.Policy{})
	r := f.record(t, "s1", "weekly", "x1", "我下周三要交季度报告")
	if r.Duplicate || r.Meta.MessageCount != 2 || r.Exchange.ID != "x1" || r.Timings["session_store"] <= 0 {
		t.Fatalf("recorded %+v", r)
	}
	v, err := f.svc.Get(context.Background(), sessions.Get{Scope: scope, SessionID: "s1", FlowID: "weekly"})
	if err != nil || len(v.Messages) != 2 || v.Messages[0].Content != "我下周三要交季度报告" {
		t.Fatalf("session %+v, %v", v, err)
	}
	got := f.turns.msgs
	if len(got) != 2 || got[0].Role != "user" || got[1].Role != "assistant" || got[0].ConversationID != "s1" ||
		!got[0].CreatedAt.Equal(r.Exchange.At) || got[1].Content != "answer to 我下周三要交季度报告" {
		t.Fatalf("extraction channel got %+v", got)
	}
	// The retry of the same exchange writes nothing new and hands the message
	// store the same ids, which it recognises.
	again := f.record(t, "s1", "weekly", "x1", "我下周三要交季度报告")
	if !again.Duplicate || again.Meta.MessageCount != 2 {
		t.Errorf("retry %+v", again)
	}
	if ids := []string{f.turns.msgs[2].MessageID, f.turns.msgs[3].MessageID}; !slices.Equal(ids, []string{got[0].MessageID, got[1].MessageID}) {
		t.Errorf("a retry got new message ids %v, first %s %s", ids, got[0].MessageID, got[1].MessageID)
	}
	// The same exchange id in another session or flow is another turn.
	other := f.record(t, "s1", "daily", "x1", "hello")
	if other.Duplicate {
		t.Error("an exchange id of another flow counted as a retry")
	}
	if f.turns.msgs[4].MessageID == got[0].MessageID {
		t.Error("two flows' turns got one message id")
	}
}

func TestRecord_generatesAnExchangeIDWhenNoneIsGiven(t *testing.T) {
	t.Parallel()
	f := newFixture(t, session.Policy{})
	a := f.record(t, "s1", "f", "", "one")
	b := f.record(t, "s1", "f", "", "one")
	if a.Exchange.ID == "" || a.Exchange.ID == b.Exchange.ID || b.Duplicate || b.Meta.MessageCount != 4 {
		t.Errorf("generated ids %q %q, second %+v", a.Exchange.ID, b.Exchange.ID, b)
	}
}

func TestRecord_refusesBadInputNamingTheFields(t *testing.T) {
	t.Parallel()
	f := newFixture(t, session.Policy{})
	cases := map[string]struct {
		cmd    sessions.Record
		fields []string
	}{
		"no flow":         {sessions.Record{Scope: scope, SessionID: "s", Exchange: session.ExchangeInput{UserMessage: "u", AssistantMessage: "a"}}, []string{"flow_id"}},
		"blank messages":  {sessions.Record{Scope: scope, SessionID: "s", FlowID: "f", Exchange: session.ExchangeInput{UserMessage: " ", AssistantMessage: ""}}, []string{"user_message", "assistant_message"}},
		"control in path": {sessions.Record{Scope: scope, SessionID: "s\x01", FlowID: "f", Exchange: session.ExchangeInput{UserMessage: "u", AssistantMessage: "a"}}, []string{"session"}},
	}
	for name, tc := range cases {
		_, err := f.svc.Record(context.Background(), tc.cmd)
		var ve *invalid.Error
		if !errors.As(err, &ve) {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var fields []string
		for _, fe := range ve.Fields {
			fields = append(fields, fe.Field)
		}
		if !slices.Equal(fields, tc.fields) {
			t.Errorf("%s: fields %v, want %v", name, fields, tc.fields)
		}
	}
	if len(f.turns.msgs) != 0 {
		t.Errorf("refused input reached the extraction channel: %v", f.turns.msgs)
	}
}

func TestRecord_failsWhenTheExtractionChannelFails(t *testing.T) {
	t.Parallel()
	f := newFixture(t, session.Policy{})
	f.turns.err = fmt.Errorf("sql down: %w", ports.ErrUnavailable)
	_, err := f.svc.Record(context.Background(), sessions.Record{Scope: scope, SessionID: "s", FlowID: "f",
		Exchange: session.ExchangeInput{ExchangeID: "x1", UserMessage: "u", AssistantMessage: "a"}})
	if !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("err %v", err)
	}
	// The retry with the same exchange id completes the turn once.
	f.turns.err = nil
	r := f.record(t, "s", "f", "x1", "u")
	if !r.Duplicate || len(f.turns.msgs) != 2 {
		t.Errorf("retry %+v, channel %d messages", r, len(f.turns.msgs))
	}
}

// A message conflict of the turn (the exchange id was used for another turn) is
// said in the turn's terms, and is still the message store's conflict.
func TestRecord_aReusedExchangeIDIsAnExchangeConflict(t *testing.T) {
	t.Parallel()
	f := newFixture(t, session.Policy{})
	f.turns.err = &ports.MessageConflictError{MessageID: "sx-0123-u"}
	_, err := f.svc.Record(context.Background(), sessions.Record{Scope: scope, SessionID: "s", FlowID: "f",
		Exchange: session.ExchangeInput{ExchangeID: "x1", UserMessage: "u", AssistantMessage: "a"}})
	var conflict *sessions.ExchangeConflictError
	var message *ports.MessageConflictError
	if !errors.As(err, &conflict) || conflict.ExchangeID != "x1" || !errors.As(err, &message) || !errors.Is(err, ports.ErrConflict) {
		t.Fatalf("err %v (%T), want an exchange conflict of x1 wrapping the message conflict", err, err)
	}
	f.turns.err = fmt.Errorf("sql down: %w", ports.ErrUnavailable)
	_, err = f.svc.Record(context.Background(), sessions.Record{Scope: scope, SessionID: "s", FlowID: "f",
		Exchange: session.ExchangeInput{ExchangeID: "x2", UserMessage: "u", AssistantMessage: "a"}})
	if errors.As(err, &conflict) || !errors.Is(err, ports.ErrUnavailable) {
		t.Errorf("an outage is %v (%T), not a conflict", err, err)
	}
}

func TestRecord_wakesTheFolderWhenASessionIsQueued(t *testing.T) {
	t.Parallel()
	f := newFixture(t, session.Policy{Threshold: 4, Keep: 2})
	f.record(t, "s", "f", "x1", "u")
	if f.wakes.n != 0 {
		t.Fatal("woke the folder below the threshold")
	}
	f.record(t, "s", "f", "x2", "u")
	if f.wakes.n != 1 {
		t.Fatalf("woke %d times at the threshold", f.wakes.n)
	}
}

func TestGetListDelete(t *testing.T) {
	t.Parallel()
	f := newFixture(t, session.Policy{})
	ctx := context.Background()
	f.record(t, "s1", "flow-a", "x1", "a1")
	f.clock.Advance(time.Second)
	f.record(t, "s1", "flow-b", "x1", "b1")
	f.clock.Advance(time.Second)
	f.record(t, "s2", "flow-a", "x1", "a2")

	list, err := f.svc.List(ctx, sessions.List{Scope: scope})
	if err != nil || len(list) != 3 || list[0].Ref.SessionID != "s2" || list[2].Ref.FlowID != "flow-a" {
		t.Fatalf("list %+v %v", list, err)
	}
	// Without a flow, the most recently active session of that id.
	v, err := f.svc.Get(ctx, sessions.Get{Scope: scope, SessionID: "s1"})
	if err != nil || v.Meta.Ref.FlowID != "flow-b" {
		t.Fatalf("get without flow: %+v %v", v.Meta, err)
	}
	v, _ = f.svc.Get(ctx, sessions.Get{Scope: scope, SessionID: "s1", FlowID: "flow-a", Limit: 1})
	if len(v.Messages) != 1 || v.Messages[0].Role != conversation.RoleAssistant {
		t.Errorf("limit 1: %+v", v.Messages)
	}
	for _, q := range []sessions.Get{{Scope: scope, SessionID: "nope"}, {Scope: scope, SessionID: "s1", FlowID: "flow-c"}} {
		_, err := f.svc.Get(ctx, q)
		if !errors.Is(err, ports.ErrNotFound) || !strings.Contains(err.Error(), `session "`) {
			t.Errorf("%+v: %v", q, err)
		}
	}
	if _, err := f.svc.Get(ctx, sessions.Get{Scope: scope, SessionID: "s1", Limit: -1}); err == nil {
		t.Error("a negative limit was accepted")
	}
	if _, err := f.svc.List(ctx, sessions.List{Scope: scope, Limit: 501}); err == nil {
		t.Error("a listing limit above 500 was accepted")
	}

	// Without a flow, delete removes the session id in every flow.
	if err := f.svc.Delete(ctx, sessions.Delete{Scope: scope, SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	list, _ = f.svc.List(ctx, sessions.List{Scope: scope})
	if len(list) != 1 || list[0].Ref.SessionID != "s2" {
		t.Errorf("after delete: %+v", list)
	}
	if err := f.svc.Delete(ctx, sessions.Delete{Scope: scope, SessionID: "s1"}); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
	if err := f.svc.Delete(ctx, sessions.Delete{Scope: scope, SessionID: "s2", FlowID: "flow-b"}); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("delete in the wrong flow: %v", err)
	}
}

// observed records the users ExchangeRecorded was told of.
type observed struct {
	mu    sync.Mutex
	users []string
}

func (o *observed) ExchangeRecorded(sc memory.Scope) {
	o.mu.Lock()
	o.users = append(o.users, sc.User)
	o.mu.Unlock()
}

// Every recorded exchange is told to the observer (the profile's refresh mark),
// a retry too; a turn that failed is not.
func TestRecord_tellsTheObserverOfRecordedExchanges(t *testing.T) {
	t.Parallel()
	f := newFixture(t, session.Policy{})
	obs := &observed{}
	svc := sessions.New(sessions.Deps{Store: f.store, Conversations: f.turns, Clock: f.clock, IDs: ulids.New(), Exchanges: obs}, sessions.Options{})
	record := func(id string) error {
		_, err := svc.Record(context.Background(), sessions.Record{Scope: scope, SessionID: "s1", FlowID: "f",
			Exchange: session.ExchangeInput{ExchangeID: id, UserMessage: "q", AssistantMessage: "a"}})
		return err
	}
	for _, id := range []string{"x1", "x1", "x2"} {
		if err := record(id); err != nil {
			t.Fatal(err)
		}
	}
	f.turns.err = errors.New("disk full")
	if err := record("x3"); err == nil {
		t.Fatal("a failed write was not reported")
	}
	if !slices.Equal(obs.users, []string{scope.User, scope.User, scope.User}) {
		t.Errorf("observer told %v, want the three recorded exchanges", obs.users)
	}
}

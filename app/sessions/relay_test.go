package sessions_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"engram/adapters/sqlstore"
	"engram/adapters/ulids"
	"engram/app/sessions"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/domain/session"
	"engram/ports"
	"engram/test/fakeclock"
	"engram/test/teststore"
)

// queue is an in-memory turn queue; the relaying store feeds it as the Redis
// append script does.
type queue struct {
	mu      sync.Mutex
	pending []ports.QueuedTurn // not yet read
	unacked map[string]ports.QueuedTurn
	acked   []string
}

func (q *queue) push(x session.Exchange) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending = append(q.pending, ports.QueuedTurn{ID: fmt.Sprintf("%d-0", len(q.pending)+len(q.acked)+len(q.unacked)), Exchange: x})
}

func (q *queue) ReadTurns(_ context.Context, _ string, limit int, _ time.Duration) ([]ports.QueuedTurn, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := min(limit, len(q.pending))
	out := q.pending[:n]
	q.pending = q.pending[n:]
	for _, t := range out {
		q.unacked[t.ID] = t
	}
	return out, nil
}

func (q *queue) PendingTurns(context.Context, string, int) ([]ports.QueuedTurn, error) {
	return nil, nil
}

func (q *queue) ClaimStaleTurns(context.Context, string, time.Duration, int) ([]ports.QueuedTurn, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []ports.QueuedTurn
	for _, t := range q.unacked {
		out = append(out, t)
	}
	return out, nil
}

func (q *queue) AckTurns(_ context.Context, ids []string) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, id := range ids {
		delete(q.unacked, id)
		q.acked = append(q.acked, id)
	}
	return nil
}

// relayingStore queues every new turn, as Redis does with RelayTurns.
type relayingStore struct {
	*sqlstore.SessionStore
	q *queue
}

func (s relayingStore) RelaysTurns() bool { return true }

func (s relayingStore) AppendExchange(ctx context.Context, a ports.SessionAppend) (ports.SessionAppended, error) {
	out, err := s.SessionStore.AppendExchange(ctx, a)
	if err == nil && !out.Duplicate {
		s.q.push(a.Exchange)
		out.Relayed = true
	}
	return out, err
}

// flaky fails the first n calls as unavailable, and refuses contents it is told to.
type flaky struct {
	turns
	fail   int
	refuse string
}

func (f *flaky) RecordTurn(ctx context.Context, sc memory.Scope, msgs []conversation.Input) error {
	f.mu.Lock()
	if f.fail > 0 {
		f.fail--
		f.mu.Unlock()
		return fmt.Errorf("database busy: %w", ports.ErrUnavailable)
	}
	for _, m := range msgs {
		if m.Content == f.refuse {
			f.mu.Unlock()
			return &ports.MessageConflictError{MessageID: m.MessageID}
		}
	}
	f.mu.Unlock()
	return f.turns.RecordTurn(ctx, sc, msgs)
}

// With a relaying store, record_exchange returns after the append alone; the relay
// writes the messages afterwards, once each, and survives a busy message store.
func TestRecord_aRelayingStoreAnswersAfterTheAppendAndTheRelayWritesTheMessages(t *testing.T) {
	t.Parallel()
	clk := fakeclock.New(start)
	q := &queue{unacked: map[string]ports.QueuedTurn{}}
	conv := &flaky{refuse: "poison"}
	svc := sessions.New(sessions.Deps{Store: relayingStore{teststore.New(t).Sessions(clk, session.Limits{}), q}, Conversations: conv,
		Clock: clk, IDs: ulids.New()}, sessions.Options{})
	ctx := context.Background()
	for _, u := range []string{"one", "two", "poison", "three"} {
		r, err := svc.Record(ctx, sessions.Record{Scope: scope, SessionID: "s", FlowID: "f",
			Exchange: session.ExchangeInput{ExchangeID: u, UserMessage: u, AssistantMessage: "ok"}})
		if err != nil || r.Timings["messages"] != 0 {
			t.Fatalf("record %s: %+v %v", u, r, err)
		}
	}
	if len(conv.msgs) != 0 {
		t.Fatalf("record wrote the messages itself: %v", conv.msgs)
	}
	// A retry of a relayed turn is a duplicate for the store; its messages are
	// written at once (the first write may not have happened yet), idempotently.
	if r, err := svc.Record(ctx, sessions.Record{Scope: scope, SessionID: "s", FlowID: "f",
		Exchange: session.ExchangeInput{ExchangeID: "one", UserMessage: "one", AssistantMessage: "ok"}}); err != nil || !r.Duplicate {
		t.Fatalf("retry %+v %v", r, err)
	}

	if len(conv.msgs) != 2 {
		t.Fatalf("the retry wrote %d messages", len(conv.msgs))
	}
	conv.fail = 2
	relay := sessions.NewRelay(q, conv, sessions.RelayOptions{Consumer: "r1"})
	if n, err := relay.Step(ctx, sessions.ReadNew); !errors.Is(err, ports.ErrUnavailable) || n != 3 {
		// The busy store failed the batch and the first turn; the others went
		// one by one: the refused one is dropped, two are written, the first
		// stays queued.
		t.Fatalf("first step: %d handled, %v", n, err)
	}
	if n, err := relay.Step(ctx, sessions.ReadStale); err != nil || n != 1 {
		t.Fatalf("stale step: %d handled, %v", n, err)
	}
	var users []string
	for _, m := range conv.msgs {
		if m.Role == "user" {
			users = append(users, m.Content)
		}
	}
	slices.Sort(users)
	if !slices.Equal(users, []string{"one", "one", "three", "two"}) {
		t.Errorf("written %v: want every turn but the refused one (one twice: the retry and the relay, the same ids)", users)
	}
	if len(q.unacked) != 0 || len(q.pending) != 0 || len(q.acked) != 4 {
		t.Errorf("queue: %d unacked, %d pending, %d acked", len(q.unacked), len(q.pending), len(q.acked))
	}
}

package redisstore

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"engram/domain/memory"
	"engram/domain/session"
	"engram/ports"
	"engram/test/contract"
	"engram/test/testenv"
)

// openForTest returns a store on the test server under a key prefix of its own
// (helpers share one Redis), whose keys are deleted when the test ends.
func openForTest(t *testing.T, limits session.Limits, cache bool) *Store {
	t.Helper()
	return openWith(t, Options{Limits: limits, ClientCache: cache})
}

func openWith(t testing.TB, opts Options) *Store {
	t.Helper()
	addr := testenv.RedisAddr(t)
	prefix := "engram-test-" + strings.ToLower(ulid.Make().String())
	opts.Addr, opts.Prefix = addr, prefix
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = s.Close()
		if err := testenv.DeleteRedisPrefix(addr, prefix); err != nil {
			t.Logf("clean up %s: %v", prefix, err)
		}
	})
	if err := s.Ping(context.Background()); err != nil {
		t.Fatalf("ping %s: %v", addr, err)
	}
	return s
}

func TestSessionStore_Redis(t *testing.T) {
	t.Parallel()
	contract.RunSessionStore(t, func(t *testing.T, limits session.Limits) contract.SessionBackend {
		return openForTest(t, limits, false)
	})
	contract.RunSessionActivity(t, func(t *testing.T, limits session.Limits) contract.SessionActivity {
		return openForTest(t, limits, false)
	})
}

func TestSessionStore_RedisClientCache(t *testing.T) {
	t.Parallel()
	contract.RunSessionStore(t, func(t *testing.T, limits session.Limits) contract.SessionBackend {
		return openForTest(t, limits, true)
	})
	contract.RunSessionActivity(t, func(t *testing.T, limits session.Limits) contract.SessionActivity {
		return openForTest(t, limits, true)
	})
}

func testExchange(t *testing.T, ref session.Ref, id string, at time.Time) session.Exchange {
	t.Helper()
	x, err := session.NewExchange(ref, session.ExchangeInput{ExchangeID: id, UserMessage: "q " + id, AssistantMessage: "a " + id}, "", at)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// The keys are seed 003's with the tenant in front, ids encoded, and the TTLs of
// the limits: 7 days for messages and meta, 30 for the summary, the index and the
// tenant's user sets.
func TestKeys_followTheSeedDesign_Redis(t *testing.T) {
	t.Parallel()
	s := openForTest(t, session.Limits{}, false)
	ctx := context.Background()
	ref := session.Ref{Scope: memory.Scope{Tenant: "acme", User: "li:lei"}, FlowID: "weekly-report", SessionID: "s%1"}
	if _, err := s.AppendExchange(ctx, ports.SessionAppend{Exchange: testExchange(t, ref, "x1", time.Now()), FoldAt: 2}); err != nil {
		t.Fatal(err)
	}
	c, _ := s.Client()
	base := s.prefix + ":acme:li%3Alei:weekly-report:s%251"
	for key, ttl := range map[string]time.Duration{
		base + ":messages": 7 * 24 * time.Hour, base + ":meta": 7 * 24 * time.Hour, base + ":exchanges": 7 * 24 * time.Hour,
		s.prefix + ":acme:li%3Alei:sessions": 30 * 24 * time.Hour,
		s.prefix + ":acme:users":             30 * 24 * time.Hour, s.prefix + ":acme:user-ids": 30 * 24 * time.Hour,
	} {
		got, err := c.Do(ctx, c.B().Pttl().Key(key).Build()).AsInt64()
		if err != nil || got <= 0 || time.Duration(got)*time.Millisecond > ttl || time.Duration(got)*time.Millisecond < ttl-time.Minute {
			t.Errorf("%s: TTL %d ms, %v; want about %v", key, got, err, ttl)
		}
	}
	msgs, _ := c.Do(ctx, c.B().Lrange().Key(base+":messages").Start(0).Stop(-1).Build()).AsStrSlice()
	if len(msgs) != 2 || !strings.Contains(msgs[0], `"role":"user"`) || !strings.Contains(msgs[0], `"content":"q x1"`) {
		t.Errorf("messages %v", msgs)
	}
	meta, _ := c.Do(ctx, c.B().Hgetall().Key(base+":meta").Build()).AsStrMap()
	for _, f := range []string{"flow_name", "created_at", "last_active_at", "message_count"} {
		if _, ok := meta[f]; !ok {
			t.Errorf("meta lacks %s: %v", f, meta)
		}
	}
	if due, err := c.Do(ctx, c.B().Zscore().Key(s.prefix+":folds").Member("acme:li%3Alei:weekly-report:s%251").Build()).AsFloat64(); err != nil || due <= 0 {
		t.Errorf("not in the fold queue: %v %v", due, err)
	}
}

// With the client-side cache a listing after a new turn shows the turn: a cached
// meta whose activity differs from the index is read again.
func TestSessions_clientCacheNeverListsAStaleMeta_Redis(t *testing.T) {
	t.Parallel()
	s := openForTest(t, session.Limits{}, true)
	ctx := context.Background()
	scope := memory.Scope{Tenant: "t", User: "u"}
	a, b := session.Ref{Scope: scope, FlowID: "f", SessionID: "a"}, session.Ref{Scope: scope, FlowID: "f", SessionID: "b"}
	t0 := time.Now()
	for i, ref := range []session.Ref{a, b} {
		if _, err := s.AppendExchange(ctx, ports.SessionAppend{Exchange: testExchange(t, ref, "x1", t0.Add(time.Duration(i)*time.Millisecond))}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 20 {
		if _, err := s.Sessions(ctx, scope, ports.SessionQuery{}); err != nil {
			t.Fatal(err)
		}
		at := t0.Add(time.Duration(i+2) * time.Millisecond)
		if _, err := s.AppendExchange(ctx, ports.SessionAppend{Exchange: testExchange(t, a, fmt.Sprintf("y%d", i), at)}); err != nil {
			t.Fatal(err)
		}
		list, err := s.Sessions(ctx, scope, ports.SessionQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 2 || list[0].Ref != a || list[0].MessageCount != int64(4+2*i) || !list[0].LastActiveAt.Equal(at.UTC().Truncate(time.Microsecond)) {
			t.Fatalf("turn %d: listing %+v", i, list)
		}
	}
}

// Each new turn is queued with its append; a duplicate is not. Turns are read once
// per consumer group, a turn left unacknowledged is claimed by another consumer,
// and an acknowledged turn leaves the stream.
func TestTurnQueue_Redis(t *testing.T) {
	t.Parallel()
	s := openWith(t, Options{RelayTurns: true})
	ctx := context.Background()
	ref := session.Ref{Scope: memory.Scope{Tenant: "t", User: "u:1"}, FlowID: "f", SessionID: "s"}
	t0 := time.Now().UTC().Truncate(time.Microsecond)
	for i, id := range []string{"x1", "x2", "x3", "x2"} {
		x := testExchange(t, ref, id, t0.Add(time.Duration(i)*time.Millisecond))
		x.FlowName = "Flow"
		got, err := s.AppendExchange(ctx, ports.SessionAppend{Exchange: x})
		if err != nil {
			t.Fatal(err)
		}
		if got.Relayed == got.Duplicate {
			t.Fatalf("%s: relayed %v, duplicate %v", id, got.Relayed, got.Duplicate)
		}
	}
	turns, err := s.ReadTurns(ctx, "relay-a", 10, 100*time.Millisecond)
	if err != nil || len(turns) != 3 {
		t.Fatalf("read %d turns: %v", len(turns), err)
	}
	first := turns[0].Exchange
	if turns[0].Err != nil || first.Ref != ref || first.ID != "x1" || first.User != "q x1" || first.Assistant != "a x1" ||
		first.FlowName != "Flow" || !first.At.Equal(t0) || turns[2].Exchange.ID != "x3" {
		t.Fatalf("turns %+v", turns)
	}
	if again, _ := s.ReadTurns(ctx, "relay-b", 10, 50*time.Millisecond); len(again) != 0 {
		t.Fatalf("turns read twice: %+v", again)
	}
	if err := s.AckTurns(ctx, []string{turns[0].ID, turns[1].ID}); err != nil {
		t.Fatal(err)
	}
	mine, err := s.PendingTurns(ctx, "relay-a", 10)
	if err != nil || len(mine) != 1 || mine[0].Exchange.ID != "x3" {
		t.Fatalf("relay-a's own pending turns: %+v, %v", mine, err)
	}
	if none, _ := s.PendingTurns(ctx, "relay-b", 10); len(none) != 0 {
		t.Fatalf("relay-b has pending turns it never read: %+v", none)
	}
	stale, err := s.ClaimStaleTurns(ctx, "relay-b", 0, 10)
	if err != nil || len(stale) != 1 || stale[0].Exchange.ID != "x3" {
		t.Fatalf("stale %+v, %v", stale, err)
	}
	if err := s.AckTurns(ctx, []string{stale[0].ID}); err != nil {
		t.Fatal(err)
	}
	c, _ := s.Client()
	if n, _ := c.Do(ctx, c.B().Xlen().Key(s.turnsKey()).Build()).AsInt64(); n != 0 {
		t.Errorf("%d entries left in the stream", n)
	}
}

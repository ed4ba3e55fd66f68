package sessions_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"engram/adapters/clock"
	"engram/adapters/sqlstore"
	"engram/app/sessions"
	"engram/domain/memory"
	"engram/domain/session"
	"engram/ports"
	"engram/test/contract"
	"engram/test/fakeclock"
	"engram/test/teststore"
)

// failoverBackend is the fallback with its primary's folds and imports, as the
// session contract drives a store.
type failoverBackend struct {
	*sessions.Failover
	primary *sqlstore.SessionStore
}

func (b failoverBackend) ClaimFolds(ctx context.Context, c ports.FoldClaim) ([]session.View, error) {
	return b.primary.ClaimFolds(ctx, c)
}

func (b failoverBackend) ApplyFold(ctx context.Context, f session.Fold) error {
	return b.primary.ApplyFold(ctx, f)
}

func (b failoverBackend) ReleaseFold(ctx context.Context, ref session.Ref, holder string, retryAt time.Time) error {
	return b.primary.ReleaseFold(ctx, ref, holder, retryAt)
}

func (b failoverBackend) ExportSession(ctx context.Context, ref session.Ref) (session.State, error) {
	return b.primary.ExportSession(ctx, ref)
}

func (b failoverBackend) ReplaceSession(ctx context.Context, st session.State, rev int64) error {
	return b.primary.ReplaceSession(ctx, st, rev)
}

// With the primary up and the secondary possibly holding sessions (as after a
// start), the fallback counts users as every session store does.
func TestFailover_countsUsersAsTheContractSays(t *testing.T) {
	t.Parallel()
	contract.RunSessionActivity(t, func(t *testing.T, limits session.Limits) contract.SessionActivity {
		primary := teststore.New(t).Sessions(clock.System{}, limits)
		secondary := teststore.New(t).Sessions(clock.System{}, limits)
		return failoverBackend{Failover: sessions.NewFailover(&switchable{SessionStore: primary}, secondary, sessions.FailoverOptions{}), primary: primary}
	})
}

// During and after an outage the users listing counts the sessions of both
// stores, a session in both once; while the primary is down only the secondary
// answers, and once the secondary is drained only the primary.
func TestFailover_countsUsersOfBothStoresUntilTheSecondaryIsDrained(t *testing.T) {
	t.Parallel()
	clk := fakeclock.New(start)
	primary := &switchable{SessionStore: teststore.New(t).Sessions(clk, session.Limits{})}
	secondary := teststore.New(t).Sessions(clk, session.Limits{})
	fo := sessions.NewFailover(primary, secondary, sessions.FailoverOptions{})
	ctx := context.Background()
	alice, bob := memory.Scope{Tenant: "t1", User: "alice"}, memory.Scope{Tenant: "t1", User: "bob"}
	n := 0
	record := func(sc memory.Scope, flow string) {
		t.Helper()
		clk.Advance(time.Second)
		n++
		x, _ := session.NewExchange(session.Ref{Scope: sc, FlowID: flow, SessionID: "s"},
			session.ExchangeInput{ExchangeID: fmt.Sprint(n), UserMessage: "u", AssistantMessage: "a"}, "", clk.Now())
		if _, err := fo.AppendExchange(ctx, ports.SessionAppend{Exchange: x}); err != nil {
			t.Fatal(err)
		}
	}
	counts := func() map[string]int64 {
		t.Helper()
		users, err := fo.UsersAfter(ctx, "t1", "", 10)
		if err != nil {
			t.Fatal(err)
		}
		acts, err := fo.Activity(ctx, "t1", []string{"alice", "bob", "carol"})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int64{}
		for u, a := range acts {
			out[u] = a.Count
		}
		if listed := slices.Sorted(func(yield func(string) bool) {
			for u := range out {
				if !yield(u) {
					return
				}
			}
		}); !slices.Equal(users, listed) {
			t.Errorf("UsersAfter %v, but Activity counts %v", users, out)
		}
		return out
	}

	fo.Step(ctx)
	record(alice, "f1")
	primary.down.Store(true)
	record(alice, "f1") // the same session, now in both stores
	record(bob, "f1")
	if got := counts(); got["alice"] != 1 || got["bob"] != 1 || len(got) != 2 {
		t.Errorf("while down: %v, want the secondary's alice 1 and bob 1", got)
	}
	primary.down.Store(false)
	record(alice, "f2") // the probe has not run: still down, into the secondary
	fo.Step(ctx)        // back up; the drain moves what the secondary holds
	record(alice, "f3") // on the primary
	if got := counts(); got["alice"] != 3 || got["bob"] != 1 || len(got) != 2 {
		t.Errorf("after the drain: %v, want alice 3 and bob 1", got)
	}
	if refs, _ := secondary.SessionRefs(ctx, 10); len(refs) != 0 {
		t.Fatalf("the secondary still holds %v", refs)
	}
}

// While the secondary still holds a session the primary holds too (another
// process's outage), a user is listed once and counted once per session.
func TestFailover_countsASessionInBothStoresOnce(t *testing.T) {
	t.Parallel()
	clk := fakeclock.New(start)
	primary := teststore.New(t).Sessions(clk, session.Limits{})
	secondary := teststore.New(t).Sessions(clk, session.Limits{})
	ctx := context.Background()
	record := func(st ports.SessionStore, user, flow string) {
		t.Helper()
		clk.Advance(time.Second)
		x, _ := session.NewExchange(session.Ref{Scope: memory.Scope{Tenant: "t1", User: user}, FlowID: flow, SessionID: "s"},
			session.ExchangeInput{UserMessage: "u", AssistantMessage: "a"}, fmt.Sprint(clk.Now().Unix()), clk.Now())
		if _, err := st.AppendExchange(ctx, ports.SessionAppend{Exchange: x}); err != nil {
			t.Fatal(err)
		}
	}
	record(primary, "alice", "f1")
	record(secondary, "alice", "f1")
	record(secondary, "bob", "f1")
	record(secondary, "alice", "f2")
	fo := sessions.NewFailover(&switchable{SessionStore: primary}, secondary, sessions.FailoverOptions{})
	if users, err := fo.UsersAfter(ctx, "t1", "", 10); err != nil || !slices.Equal(users, []string{"alice", "bob"}) {
		t.Errorf("UsersAfter = %v %v, want alice (both stores) and bob (the secondary only)", users, err)
	}
	if users, _ := fo.UsersAfter(ctx, "t1", "", 1); !slices.Equal(users, []string{"alice"}) {
		t.Errorf("limit 1: %v", users)
	}
	acts, err := fo.Activity(ctx, "t1", []string{"alice"})
	if err != nil {
		t.Fatal(err)
	}
	if a := acts["alice"]; a.Count != 2 || !a.LastActiveAt.Equal(clk.Now()) {
		t.Errorf("alice %+v, want 2 sessions (f1 in both stores, f2 in the secondary), last active %v", a, clk.Now())
	}
}

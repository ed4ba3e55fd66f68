package contract

import (
	"context"
	"slices"
	"testing"
	"time"

	"engram/domain/memory"
	"engram/domain/session"
	"engram/ports"
)

// SessionActivity is a session backend that also counts its users for the
// operator's listing (GET /v1/users).
type SessionActivity interface {
	SessionBackend
	ports.UserActivity
}

// RunSessionActivity is the contract of ports.UserActivity on a session store
// (SQLite, PostgreSQL, Redis, and the Redis→SQL failover). open returns
// an empty store bounded by limits whose clock is the system clock.
//
// What a session store counts is what GET /v1/users/{user}/sessions lists: the
// user's sessions with live meta. A session whose meta expired (a summary may
// outlive it), a deleted session and a purged user count nothing; LastActiveAt is
// the latest last_active_at of the counted sessions. UsersAfter lists exactly the
// users Activity counts, in byte order of their ids, and never lists another
// tenant's users.
func RunSessionActivity(t *testing.T, open func(t *testing.T, limits session.Limits) SessionActivity) {
	t.Helper()
	long := session.Limits{MaxHistory: 40, MessageTTL: time.Hour, SummaryTTL: 2 * time.Hour}
	userRef := func(t *testing.T, user, flow, id string) session.Ref {
		ref := sessRefFor(t, flow, id)
		ref.Scope.User = user
		return ref
	}
	// begin opens the case's store; its tenant is the case's own.
	begin := func(t *testing.T, limits session.Limits) (SessionActivity, context.Context, time.Time, string) {
		return open(t, limits), sessContext(t), sessNow(), sessRefFor(t, "f", "s").Scope.Tenant
	}

	t.Run("users with sessions are listed in id order and counted by session", func(t *testing.T) {
		t.Parallel()
		s, ctx, t0, tenant := begin(t, long)
		a1, a2 := userRef(t, "u-a", "flow-1", "s1"), userRef(t, "u-a", "flow-2", "s1")
		sessAppend(t, ctx, s, sessExchange(t, a1, "x1", "", "q", "a", t0), 0)
		sessAppend(t, ctx, s, sessExchange(t, a2, "x1", "", "q", "a", t0.Add(time.Second)), 0)
		sessAppend(t, ctx, s, sessExchange(t, a1, "x2", "", "q", "a", t0.Add(2*time.Second)), 0)
		for i, user := range []string{"u-c%1", "u-b:x", "u-d"} {
			sessAppend(t, ctx, s, sessExchange(t, userRef(t, user, "flow-1", "s1"), "x1", "", "q", "a", t0.Add(time.Duration(i)*time.Millisecond)), 0)
		}
		elsewhere := session.Ref{Scope: memory.Scope{Tenant: sessTenant(), User: "u-0"}, FlowID: "flow-1", SessionID: "s1"}
		sessAppend(t, ctx, s, sessExchange(t, elsewhere, "x1", "", "q", "a", t0), 0)

		if got := usersAfter(t, s, tenant, "", 10); !slices.Equal(got, []string{"u-a", "u-b:x", "u-c%1", "u-d"}) {
			t.Errorf("UsersAfter = %v, want the tenant's four users in id order", got)
		}
		if got := usersAfter(t, s, tenant, "u-a", 2); !slices.Equal(got, []string{"u-b:x", "u-c%1"}) {
			t.Errorf("UsersAfter(u-a, 2) = %v", got)
		}
		if got := usersAfter(t, s, tenant, "u-d", 10); len(got) != 0 {
			t.Errorf("UsersAfter past the last user = %v", got)
		}
		if got := usersAfter(t, s, tenant, "", 0); len(got) != 0 {
			t.Errorf("limit 0 listed %v", got)
		}
		got, err := s.Activity(ctx, tenant, []string{"u-a", "u-b:x", "nobody", "u-0"})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]ports.Activity{
			"u-a":   {Count: 2, LastActiveAt: t0.Add(2 * time.Second)},
			"u-b:x": {Count: 1, LastActiveAt: t0.Add(time.Millisecond)},
		}
		if !activityEqual(got, want) {
			t.Errorf("Activity = %v\nwant %v (users without sessions, and other tenants' users, absent)", got, want)
		}
		if got, err := s.Activity(ctx, tenant, nil); err != nil || len(got) != 0 {
			t.Errorf("Activity of no users = %v %v", got, err)
		}
	})

	t.Run("deleted and expired sessions count nothing, a summary outliving its meta included", func(t *testing.T) {
		t.Parallel()
		limits := session.Limits{MaxHistory: 40, MessageTTL: 800 * time.Millisecond, SummaryTTL: time.Hour}
		s, ctx, t0, tenant := begin(t, limits)
		kept, gone := userRef(t, "u-x", "flow-1", "s1"), userRef(t, "u-x", "flow-2", "s1")
		sessAppend(t, ctx, s, sessExchange(t, kept, "x1", "", "q", "a", t0), 2)
		sessAppend(t, ctx, s, sessExchange(t, gone, "x1", "", "q", "a", t0.Add(time.Second)), 0)
		if err := s.DeleteSession(ctx, gone); err != nil {
			t.Fatal(err)
		}
		got, err := s.Activity(ctx, tenant, []string{"u-x"})
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]ports.Activity{"u-x": {Count: 1, LastActiveAt: t0}}; !activityEqual(got, want) {
			t.Errorf("after a delete: Activity = %v, want %v", got, want)
		}
		sessFoldOnce(t, ctx, s, "folder", t0, 2, 0)
		sessWait(t, "the meta to expire", func() bool {
			v, err := s.Session(ctx, kept, 0)
			return err == nil && !v.Meta.Live()
		})
		if got, err := s.Activity(ctx, tenant, []string{"u-x"}); err != nil || len(got) != 0 {
			t.Errorf("a session with only its summary left is counted: %v %v", got, err)
		}
		if got := usersAfter(t, s, tenant, "", 10); len(got) != 0 {
			t.Errorf("a user whose sessions expired is listed: %v", got)
		}
	})

	t.Run("a purged user is neither listed nor counted, and others stay", func(t *testing.T) {
		t.Parallel()
		s, ctx, t0, tenant := begin(t, long)
		erased, stays := userRef(t, "u-erased", "flow-1", "s1"), userRef(t, "u-stays", "flow-1", "s1")
		sessAppend(t, ctx, s, sessExchange(t, erased, "x1", "", "q", "a", t0), 0)
		sessAppend(t, ctx, s, sessExchange(t, userRef(t, "u-erased", "flow-2", "s2"), "x1", "", "q", "a", t0), 0)
		sessAppend(t, ctx, s, sessExchange(t, stays, "x1", "", "q", "a", t0), 0)
		if _, err := s.PurgeUser(ctx, erased.Scope); err != nil {
			t.Fatal(err)
		}
		if got := usersAfter(t, s, tenant, "", 10); !slices.Equal(got, []string{"u-stays"}) {
			t.Errorf("after the purge UsersAfter = %v", got)
		}
		got, err := s.Activity(ctx, tenant, []string{"u-erased", "u-stays"})
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]ports.Activity{"u-stays": {Count: 1, LastActiveAt: t0}}; !activityEqual(got, want) {
			t.Errorf("after the purge Activity = %v, want %v", got, want)
		}
		// A new turn after the erasure starts a clean slate.
		sessAppend(t, ctx, s, sessExchange(t, erased, "x9", "", "q", "a", t0.Add(time.Minute)), 0)
		if got, _ := s.Activity(ctx, tenant, []string{"u-erased"}); got["u-erased"].Count != 1 {
			t.Errorf("a turn after the purge counts %v, want one session", got)
		}
	})
}

func usersAfter(t *testing.T, s ports.UserActivity, tenant, after string, limit int) []string {
	t.Helper()
	users, err := s.UsersAfter(sessContext(t), tenant, after, limit)
	if err != nil {
		t.Fatalf("UsersAfter(%q, %d): %v", after, limit, err)
	}
	return users
}

// activityEqual compares activities, times as instants.
func activityEqual(got, want map[string]ports.Activity) bool {
	if len(got) != len(want) {
		return false
	}
	for u, w := range want {
		g, ok := got[u]
		if !ok || g.Count != w.Count || !g.LastActiveAt.Equal(w.LastActiveAt) {
			return false
		}
	}
	return true
}

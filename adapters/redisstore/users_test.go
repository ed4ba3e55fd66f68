package redisstore

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"engram/domain/memory"
	"engram/domain/session"
	"engram/ports"
)

// After PurgeUser nothing of the user is left anywhere under the store's prefix:
// no key of theirs, no member of a shared set (the tenant's user sets, the fold
// queue) and no value that names them, not even a turn still queued for the relay.
// The test walks every key of its own prefix with SCAN; the store itself never
// scans to list users.
func TestPurgeUser_leavesNoKeyOrMemberOfTheUser_Redis(t *testing.T) {
	t.Parallel()
	s := openWith(t, Options{RelayTurns: true})
	ctx := context.Background()
	erased := memory.Scope{Tenant: "acme", User: "erased:9f"}
	stays := memory.Scope{Tenant: "acme", User: "stays"}
	t0 := time.Now()
	for _, ref := range []session.Ref{
		{Scope: erased, FlowID: "weekly", SessionID: "s1"}, {Scope: erased, FlowID: "daily", SessionID: "s%2"},
		{Scope: stays, FlowID: "weekly", SessionID: "s1"},
	} {
		for i, id := range []string{"x1", "x2"} {
			x := testExchange(t, ref, id, t0.Add(time.Duration(i)*time.Millisecond))
			if _, err := s.AppendExchange(ctx, ports.SessionAppend{Exchange: x, FoldAt: 2}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A fold claim and a summary of the erased user's first session.
	views, err := s.ClaimFolds(ctx, ports.FoldClaim{Holder: "w", Now: t0.Add(time.Second), Lease: time.Minute, Limit: 10})
	if err != nil || len(views) != 3 {
		t.Fatalf("claimed %d: %v", len(views), err)
	}
	for _, v := range views {
		if v.Meta.Ref.Scope != erased || v.Meta.Ref.FlowID != "weekly" {
			continue
		}
		plan, ok := session.Policy{Threshold: 2, Keep: 2}.Plan(v)
		if !ok {
			t.Fatal("no fold planned")
		}
		if err := s.ApplyFold(ctx, plan.Fold("summary of erased:9f", "w", 2, t0.Add(time.Second))); err != nil {
			t.Fatal(err)
		}
	}
	needles := []string{erased.User, encodeID(erased.User)}
	if found := userTraces(t, s, needles); len(found) < 5 {
		t.Fatalf("before the purge the user is in only %d places: %v", len(found), found)
	}
	counts, err := s.PurgeUser(ctx, erased)
	if err != nil {
		t.Fatal(err)
	}
	if counts["queued_turns"] != 4 {
		t.Errorf("purge counted %v, want the erased user's 4 queued turns", counts)
	}
	if found := userTraces(t, s, needles); len(found) > 0 {
		t.Errorf("after the purge the user is still in:\n%s", strings.Join(found, "\n"))
	}
	if n, err := s.TurnBacklog(ctx); err != nil || n != 2 {
		t.Errorf("queued turns left: %d %v, want the other user's 2", n, err)
	}
	if got, err := s.Activity(ctx, "acme", []string{"stays"}); err != nil || got["stays"].Count != 1 {
		t.Errorf("the other user's sessions: %v %v", got, err)
	}
}

// userTraces lists every key under the store's prefix whose name, members or
// values contain one of needles.
func userTraces(t *testing.T, s *Store, needles []string) []string {
	t.Helper()
	ctx := context.Background()
	c, err := s.Client()
	if err != nil {
		t.Fatal(err)
	}
	has := func(v string) bool {
		for _, n := range needles {
			if strings.Contains(v, n) {
				return true
			}
		}
		return false
	}
	var found []string
	var cursor uint64
	for {
		e, err := c.Do(ctx, c.B().Scan().Cursor(cursor).Match(s.prefix+":*").Count(1000).Build()).AsScanEntry()
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range e.Elements {
			if has(key) {
				found = append(found, "key "+key)
				continue
			}
			for _, v := range keyValues(t, c, key) {
				if has(v) {
					found = append(found, "in "+key+": "+v)
				}
			}
		}
		if cursor = e.Cursor; cursor == 0 {
			return found
		}
	}
}

// keyValues is everything a key holds, as strings.
func keyValues(t *testing.T, c rueidis.Client, key string) []string {
	t.Helper()
	ctx := context.Background()
	kind, err := c.Do(ctx, c.B().Type().Key(key).Build()).ToString()
	if err != nil {
		t.Fatal(err)
	}
	var vals []string
	switch kind {
	case "zset":
		vals, err = c.Do(ctx, c.B().Zrange().Key(key).Min("0").Max("-1").Build()).AsStrSlice()
	case "list":
		vals, err = c.Do(ctx, c.B().Lrange().Key(key).Start(0).Stop(-1).Build()).AsStrSlice()
	case "hash":
		var m map[string]string
		m, err = c.Do(ctx, c.B().Hgetall().Key(key).Build()).AsStrMap()
		for k, v := range m {
			vals = append(vals, k, v)
		}
	case "string":
		var v string
		v, err = c.Do(ctx, c.B().Get().Key(key).Build()).ToString()
		vals = []string{v}
	case "stream":
		var entries []rueidis.XRangeEntry
		entries, err = c.Do(ctx, c.B().Xrange().Key(key).Start("-").End("+").Build()).AsXRange()
		for _, e := range entries {
			for k, v := range e.FieldValues {
				vals = append(vals, k, v)
			}
		}
	case "none":
	default:
		t.Fatalf("%s is a %s: the test does not know how to read it", key, kind)
	}
	if err != nil && !rueidis.IsRedisNil(err) {
		t.Fatalf("read %s: %v", key, err)
	}
	return vals
}

// A user whose last exchange is older than the sessions can live leaves the
// tenant's user sets with a later append of the tenant, so the sets stay bounded
// by the users active within the TTL.
func TestUserSets_trimUsersPastTheTTL_Redis(t *testing.T) {
	t.Parallel()
	s := openForTest(t, session.Limits{MessageTTL: time.Hour, SummaryTTL: time.Hour}, false)
	ctx := context.Background()
	now := time.Now()
	old := session.Ref{Scope: memory.Scope{Tenant: "acme", User: "old"}, FlowID: "f", SessionID: "s"}
	recent := session.Ref{Scope: memory.Scope{Tenant: "acme", User: "recent"}, FlowID: "f", SessionID: "s"}
	if _, err := s.AppendExchange(ctx, ports.SessionAppend{Exchange: testExchange(t, old, "x1", now.Add(-2*time.Hour))}); err != nil {
		t.Fatal(err)
	}
	c, _ := s.Client()
	members := func(key string) []string {
		t.Helper()
		m, err := c.Do(ctx, c.B().Zrange().Key(key).Min("0").Max("-1").Build()).AsStrSlice()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if got := members(s.userIDsKey("acme")); len(got) != 1 || got[0] != "old" {
		t.Fatalf("user ids before: %v", got)
	}
	if _, err := s.AppendExchange(ctx, ports.SessionAppend{Exchange: testExchange(t, recent, "x1", now)}); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{s.usersKey("acme"), s.userIDsKey("acme")} {
		if got := members(key); len(got) != 1 || got[0] != "recent" {
			t.Errorf("%s after a later append: %v, want only the recent user", key, got)
		}
	}
}

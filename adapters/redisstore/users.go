package redisstore

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/rueidis"

	"engram/domain/memory"
	"engram/ports"
)

// The session store's share of GET /v1/users: each user's live sessions (the
// ones their listing shows). The tenant's user sets name the candidates without a
// key scan; the activity script counts what is live of each.

var _ ports.UserActivity = (*Store)(nil)

// usersTTL is how long a user stays in the tenant's sets after their last
// exchange: as long as anything of a session can live.
func (s *Store) usersTTL() time.Duration { return max(s.limits.MessageTTL, s.limits.SummaryTTL) }

// UsersAfter lists the tenant's users with a live session, in id order: the ids
// after the cursor from the user-id set, a page at a time, keeping those with a
// live session (a user whose sessions all expired stays in the set until an
// append trims them).
func (s *Store) UsersAfter(ctx context.Context, tenant, after string, limit int) ([]string, error) {
	if limit <= 0 {
		return nil, nil
	}
	c, err := s.conn()
	if err != nil {
		return nil, err
	}
	from := "-"
	if after != "" {
		from = "(" + after
	}
	var out []string
	for len(out) < limit {
		ids, err := c.Do(ctx, c.B().Zrange().Key(s.userIDsKey(tenant)).Min(from).Max("+").Bylex().Limit(0, int64(limit)).Build()).AsStrSlice()
		if err != nil {
			return nil, wrapErr("read the tenant's users", err)
		}
		live, err := s.activity(ctx, c, tenant, ids)
		if err != nil {
			return nil, err
		}
		for i, u := range ids {
			if live[i].Count > 0 && len(out) < limit {
				out = append(out, u)
			}
		}
		if len(ids) < limit {
			break
		}
		from = "(" + ids[len(ids)-1]
	}
	return out, nil
}

// Activity counts the users' live sessions and finds their latest exchange.
func (s *Store) Activity(ctx context.Context, tenant string, users []string) (map[string]ports.Activity, error) {
	c, err := s.conn()
	if err != nil {
		return nil, err
	}
	acts, err := s.activity(ctx, c, tenant, users)
	if err != nil {
		return nil, err
	}
	out := make(map[string]ports.Activity, len(users))
	for i, u := range users {
		if acts[i].Count > 0 {
			out[u] = acts[i]
		}
	}
	return out, nil
}

// activity runs the activity script for each user, pipelined.
func (s *Store) activity(ctx context.Context, c rueidis.Client, tenant string, users []string) ([]ports.Activity, error) {
	if len(users) == 0 {
		return nil, nil
	}
	execs := make([]rueidis.LuaExec, len(users))
	for i, u := range users {
		scope := memory.Scope{Tenant: tenant, User: u}
		execs[i] = rueidis.LuaExec{Keys: []string{s.indexKey(scope)}, Args: []string{s.userBase(scope) + ":"}}
	}
	out := make([]ports.Activity, len(users))
	for i, res := range scriptActivity.ExecMulti(ctx, c, execs...) {
		vals, err := res.ToArray()
		if err != nil {
			return nil, wrapErr("count sessions", err)
		}
		if len(vals) != 2 {
			return nil, fmt.Errorf("redisstore: count sessions: %d values from the script", len(vals))
		}
		n, err1 := vals[0].AsInt64()
		at, err2 := vals[1].ToString()
		latest, err3 := parseTime(at)
		if err := firstErr(err1, err2, err3); err != nil {
			return nil, fmt.Errorf("redisstore: count sessions of %q: %w", users[i], err)
		}
		out[i] = ports.Activity{Count: n, LastActiveAt: latest}
	}
	return out, nil
}

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
// key scan; each user's index names their sessions, whose metas say which live.

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

// activity counts each user's live sessions in two pipelined round trips, however
// many users: their session indexes, then the last_active_at of every meta they
// name (a meta that expired is gone). A count is a snapshot of a moment, not of
// one instant, which is all the listing needs.
func (s *Store) activity(ctx context.Context, c rueidis.Client, tenant string, users []string) ([]ports.Activity, error) {
	if len(users) == 0 {
		return nil, nil
	}
	indexes := make(rueidis.Commands, len(users))
	for i, u := range users {
		indexes[i] = c.B().Zrange().Key(s.indexKey(memory.Scope{Tenant: tenant, User: u})).Min("0").Max("-1").Build()
	}
	var metas rueidis.Commands
	var owner []int
	for i, res := range c.DoMulti(ctx, indexes...) {
		members, err := res.AsStrSlice()
		if err != nil {
			return nil, wrapErr("read session indexes", err)
		}
		base := s.userBase(memory.Scope{Tenant: tenant, User: users[i]}) + ":"
		for _, m := range members {
			metas = append(metas, c.B().Hget().Key(base+m+":meta").Field("last_active_at").Build())
			owner = append(owner, i)
		}
	}
	out := make([]ports.Activity, len(users))
	if len(metas) == 0 {
		return out, nil
	}
	for j, res := range c.DoMulti(ctx, metas...) {
		text, err := res.ToString()
		if rueidis.IsRedisNil(err) {
			continue // expired
		}
		if err != nil {
			return nil, wrapErr("read session metas", err)
		}
		at, err := parseTime(text)
		if err != nil {
			return nil, fmt.Errorf("redisstore: a session meta of %q: %w", users[owner[j]], err)
		}
		a := &out[owner[j]]
		a.Count++
		if at.After(a.LastActiveAt) {
			a.LastActiveAt = at
		}
	}
	return out, nil
}

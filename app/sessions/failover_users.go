package sessions

import (
	"context"
	"slices"

	"engram/domain/memory"
	"engram/ports"
)

// The fallback's share of GET /v1/users: the users and session counts of the
// primary, joined with the secondary's while it may hold sessions (as reads are),
// or the secondary's alone while the primary cannot answer.

var _ ports.UserActivity = (*Failover)(nil)

// UsersAfter lists the users with a live session in either store, in id order.
func (f *Failover) UsersAfter(ctx context.Context, tenant, after string, limit int) ([]string, error) {
	users, ok, err := onPrimary(f, ctx, "users", func(ctx context.Context) ([]string, error) {
		return f.primary.UsersAfter(ctx, tenant, after, limit)
	})
	if !ok {
		return f.secondary.UsersAfter(ctx, tenant, after, limit)
	}
	if err != nil || !f.pending.Load() {
		return users, err
	}
	more, err := f.secondary.UsersAfter(ctx, tenant, after, limit)
	if err != nil {
		return nil, err
	}
	// Each list is the first limit users of its store after the cursor, so the
	// first limit of their union are the first limit of both stores.
	all := slices.Compact(slices.Sorted(slices.Values(append(users, more...))))
	return all[:min(len(all), max(limit, 0))], nil
}

// Activity counts the users' live sessions in either store. A session being
// moved back may be in both: a user found in both stores is counted from the
// merged listing (every session once), at least as many as either store counts
// (the listing stops at ports.MaxSessionList).
func (f *Failover) Activity(ctx context.Context, tenant string, users []string) (map[string]ports.Activity, error) {
	acts, ok, err := onPrimary(f, ctx, "users", func(ctx context.Context) (map[string]ports.Activity, error) {
		return f.primary.Activity(ctx, tenant, users)
	})
	if !ok {
		return f.secondary.Activity(ctx, tenant, users)
	}
	if err != nil || !f.pending.Load() {
		return acts, err
	}
	more, err := f.secondary.Activity(ctx, tenant, users)
	if err != nil {
		return nil, err
	}
	if acts == nil {
		acts = make(map[string]ports.Activity, len(more))
	}
	for user, b := range more {
		a, both := acts[user]
		if !both {
			acts[user] = b
			continue
		}
		if acts[user], err = f.mergedActivity(ctx, memory.Scope{Tenant: tenant, User: user}, a, b); err != nil {
			return nil, err
		}
	}
	return acts, nil
}

// mergedActivity counts a user's sessions from both stores' listings merged.
func (f *Failover) mergedActivity(ctx context.Context, scope memory.Scope, a, b ports.Activity) (ports.Activity, error) {
	q := ports.SessionQuery{Limit: ports.MaxSessionList}
	primary, err := f.primary.Sessions(ctx, scope, q)
	if err != nil {
		return ports.Activity{}, err
	}
	secondary, err := f.secondary.Sessions(ctx, scope, q)
	if err != nil {
		return ports.Activity{}, err
	}
	merged := mergeListings(primary, secondary, q.Limit)
	out := ports.Activity{Count: max(int64(len(merged)), a.Count, b.Count), LastActiveAt: a.LastActiveAt}
	if b.LastActiveAt.After(out.LastActiveAt) {
		out.LastActiveAt = b.LastActiveAt
	}
	return out, nil
}

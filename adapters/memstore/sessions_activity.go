package memstore

import (
	"context"

	"engram/ports"
)

// The session store's share of GET /v1/users: the sessions the user's listing
// shows (live meta), counted per user.

var _ ports.UserActivity = (*SessionStore)(nil)

// UsersAfter lists the tenant's users with a live session.
func (st *SessionStore) UsersAfter(_ context.Context, tenant, after string, limit int) ([]string, error) {
	now := st.clock.Now()
	st.mu.Lock()
	defer st.mu.Unlock()
	set := map[string]bool{}
	for ref, s := range st.sessions {
		if sc := ref.Scope; sc.Tenant == tenant && sc.User > after && s.metaLive(now) {
			set[sc.User] = true
		}
	}
	return firstUsers(set, limit), nil
}

// Activity counts the users' live sessions and finds their latest exchange.
func (st *SessionStore) Activity(_ context.Context, tenant string, users []string) (map[string]ports.Activity, error) {
	want := wanted(users)
	now := st.clock.Now()
	st.mu.Lock()
	defer st.mu.Unlock()
	out := map[string]ports.Activity{}
	for ref, s := range st.sessions {
		if sc := ref.Scope; sc.Tenant == tenant && want[sc.User] && s.metaLive(now) {
			out[sc.User] = grow(out[sc.User], s.meta.LastActiveAt)
		}
	}
	return out, nil
}

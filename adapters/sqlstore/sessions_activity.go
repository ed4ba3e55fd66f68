package sqlstore

import (
	"context"

	"engram/ports"
)

// The session store's share of GET /v1/users: the sessions the user's listing
// shows (live meta), counted per user from short_term_sessions' primary key.

var _ ports.UserActivity = (*SessionStore)(nil)

// liveSessions are the rows of sessions whose meta is live at now.
func liveSessions(now any) userRows {
	return userRows{table: "short_term_sessions", changed: "last_active_at",
		where: "created_at IS NOT NULL AND meta_expires_at > ?", args: []any{now}}
}

// UsersAfter lists the tenant's users with a live session.
func (s *SessionStore) UsersAfter(ctx context.Context, tenant, after string, limit int) ([]string, error) {
	return usersAfter(ctx, s.db, liveSessions(s.now()), tenant, after, limit)
}

// Activity counts the users' live sessions and finds their latest exchange.
func (s *SessionStore) Activity(ctx context.Context, tenant string, users []string) (map[string]ports.Activity, error) {
	return activity(ctx, s.db, liveSessions(s.now()), tenant, users)
}

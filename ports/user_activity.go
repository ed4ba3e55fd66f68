package ports

import (
	"context"
	"time"
)

// UserActivity is what one store holds of a tenant's users, for the operator's view
// of GET /v1/users. The memory and message stores implement it; the session store
// joins with its own count, so the listing needs no change.
type UserActivity interface {
	// UsersAfter returns up to limit ids of the tenant's users that have something
	// in the store, greater than after, in ascending order.
	UsersAfter(ctx context.Context, tenant, after string, limit int) ([]string, error)
	// Activity returns, for each of these users that has something in the store,
	// how many items and when the latest changed; users with nothing are absent.
	Activity(ctx context.Context, tenant string, users []string) (map[string]Activity, error)
}

// Activity is one store's share of a user.
type Activity struct {
	Count        int64
	LastActiveAt time.Time
}

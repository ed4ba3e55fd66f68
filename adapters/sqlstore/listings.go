package sqlstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"engram/domain/memory"
	"engram/ports"
)

// What an operator sees of what is stored: a user's messages page by page
// (ports.MessageLister) and each store's share of the tenant's users
// (ports.UserActivity). Users being erased show nothing.

var (
	_ ports.MessageLister = (*MessageStore)(nil)
	_ ports.UserActivity  = (*MessageStore)(nil)
	_ ports.UserActivity  = (*MemoryStore)(nil)
)

// ListMessages pages through the user's messages in conversation time order
// (conversation_messages_user_time_idx, or the conversation index when one
// conversation is asked for). One row more than the page tells whether another
// follows.
func (s *MessageStore) ListMessages(ctx context.Context, scope memory.Scope, q ports.MessageQuery) (ports.MessagePage, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultListLimit
	}
	limit = min(limit, MaxListLimit)
	var rows []messageRow
	sel := visible(s.db.bun.NewSelect().Model(&rows).
		Where("cm.tenant_id = ?", scope.Tenant).
		Where("cm.user_id = ?", scope.User), scope)
	if q.ConversationID != "" {
		sel = sel.Where("cm.conversation_id = ?", q.ConversationID)
	}
	if q.Status != "" {
		sel = sel.Where("cm.status = ?", string(q.Status))
	}
	if !q.Since.IsZero() {
		sel = sel.Where("cm.created_at >= ?", dbTime(q.Since))
	}
	if !q.Until.IsZero() {
		sel = sel.Where("cm.created_at < ?", dbTime(q.Until))
	}
	if a := q.After; a != nil {
		at := dbTime(a.CreatedAt)
		sel = sel.WhereGroup(" AND ", func(g *bun.SelectQuery) *bun.SelectQuery {
			return g.Where("cm.created_at > ?", at).
				WhereGroup(" OR ", func(g *bun.SelectQuery) *bun.SelectQuery {
					return g.Where("cm.created_at = ?", at).Where("cm.id > ?", a.Seq)
				})
		})
	}
	if err := sel.OrderExpr("cm.created_at ASC, cm.id ASC").Limit(int64(limit + 1)).Scan(ctx); err != nil {
		return ports.MessagePage{}, wrapErr("list messages", err)
	}
	page := ports.MessagePage{More: len(rows) > limit}
	rows = rows[:min(len(rows), limit)]
	for i := range rows {
		page.Items = append(page.Items, rows[i].toMessage())
	}
	return page, nil
}

// UsersAfter lists the tenant's users with messages.
func (s *MessageStore) UsersAfter(ctx context.Context, tenant, after string, limit int) ([]string, error) {
	return usersAfter(ctx, s.db, messageRows, tenant, after, limit)
}

// Activity counts the users' messages and finds their latest arrival.
func (s *MessageStore) Activity(ctx context.Context, tenant string, users []string) (map[string]ports.Activity, error) {
	return activity(ctx, s.db, messageRows, tenant, users)
}

// UsersAfter lists the tenant's users with memories (active or not: both are
// stored until purged).
func (s *MemoryStore) UsersAfter(ctx context.Context, tenant, after string, limit int) ([]string, error) {
	return usersAfter(ctx, s.db, memoryRows, tenant, after, limit)
}

// Activity counts the users' memories and finds their latest change.
func (s *MemoryStore) Activity(ctx context.Context, tenant string, users []string) (map[string]ports.Activity, error) {
	return activity(ctx, s.db, memoryRows, tenant, users)
}

// userRows are the rows of a table that count for a user: the table, the column
// of their latest change, and a condition on them with its arguments ("" for
// every row).
type userRows struct {
	table, changed string
	where          string
	args           []any
}

var (
	messageRows  = userRows{table: "conversation_messages", changed: "received_at"}
	memoryRows   = userRows{table: "long_term_memories", changed: "updated_at"}
	profileRows  = userRows{table: "user_profiles", changed: "last_updated_at"}
	orgRows      = userRows{table: "org_members", changed: "updated_at"}
	activityRows = userRows{table: "user_activity_events", changed: "received_at"}
)

// TableActivity counts the users of one table of the profile side: a user with
// only a profile, an org entry or activity events is a data subject too.
type TableActivity struct {
	db   *DB
	rows userRows
}

var _ ports.UserActivity = TableActivity{}

// ProfileActivity, OrgActivity and EventActivity count users with a stored
// profile, an org entry, activity events.
func ProfileActivity(db *DB) TableActivity { return TableActivity{db: db, rows: profileRows} }
func OrgActivity(db *DB) TableActivity     { return TableActivity{db: db, rows: orgRows} }
func EventActivity(db *DB) TableActivity   { return TableActivity{db: db, rows: activityRows} }

// UsersAfter lists the tenant's users with rows in the table.
func (a TableActivity) UsersAfter(ctx context.Context, tenant, after string, limit int) ([]string, error) {
	return usersAfter(ctx, a.db, a.rows, tenant, after, limit)
}

// Activity counts the users' rows and finds their latest change.
func (a TableActivity) Activity(ctx context.Context, tenant string, users []string) (map[string]ports.Activity, error) {
	return activity(ctx, a.db, a.rows, tenant, users)
}

func (r userRows) condition() string {
	if r.where == "" {
		return ""
	}
	return " AND " + r.where
}

// usersAfter walks the (tenant_id, user_id, …) index of the table: DISTINCT over
// an index prefix, in order, stopping at the limit.
func usersAfter(ctx context.Context, db *DB, rows userRows, tenant, after string, limit int) ([]string, error) {
	if limit <= 0 {
		return nil, nil
	}
	var users []string
	args := append(append([]any{tenant, after}, rows.args...), limit)
	err := db.bun.NewRaw("SELECT DISTINCT user_id FROM "+rows.table+" WHERE tenant_id = ? AND user_id > ?"+rows.condition()+
		" ORDER BY user_id LIMIT ?", args...).Scan(ctx, &users)
	if err != nil && classify(err) != classNotFound {
		return nil, wrapErr("users of "+rows.table, err)
	}
	return users, nil
}

// activity counts the rows of these users and reads the latest of their change
// column.
func activity(ctx context.Context, db *DB, rows userRows, tenant string, users []string) (map[string]ports.Activity, error) {
	out := make(map[string]ports.Activity, len(users))
	for start := 0; start < len(users); start += lexicalBatch {
		var counted []struct {
			UserID string    `bun:"user_id"`
			N      int64     `bun:"n"`
			Last   time.Time `bun:"last"`
		}
		args := append([]any{tenant, bun.List(users[start:min(start+lexicalBatch, len(users))])}, rows.args...)
		err := db.bun.NewRaw("SELECT user_id, count(*) AS n, max("+rows.changed+") AS last FROM "+rows.table+
			" WHERE tenant_id = ? AND user_id IN (?)"+rows.condition()+" GROUP BY user_id", args...).Scan(ctx, &counted)
		if err != nil && classify(err) != classNotFound {
			return nil, wrapErr("activity of "+rows.table, err)
		}
		for _, r := range counted {
			out[r.UserID] = ports.Activity{Count: r.N, LastActiveAt: dbTime(r.Last)}
		}
	}
	return out, nil
}

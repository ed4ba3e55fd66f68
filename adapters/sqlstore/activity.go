package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/uptrace/bun"

	"engram/domain/memory"
	"engram/domain/profile"
	"engram/ports"
)

// ActivityStore keeps activity events in user_activity_events.
type ActivityStore struct {
	db *DB
}

var _ ports.ActivityStore = (*ActivityStore)(nil)

// NewActivityStore serves ports.ActivityStore from db.
func NewActivityStore(db *DB) *ActivityStore { return &ActivityStore{db: db} }

// RecordActivity inserts the event unless its id is stored; a stored one is
// compared with it. An event of a user being erased is refused
// (*ports.ErasingError), in the transaction, as every write of the truth: the
// purge would otherwise miss an event written after it passed the table.
func (s *ActivityStore) RecordActivity(ctx context.Context, a profile.Activity) (profile.Activity, bool, error) {
	row := toActivityRow(a)
	var (
		out     profile.Activity
		created bool
	)
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := s.db.guardWrite(ctx, tx, a.Scope); err != nil {
			return err
		}
		res, err := tx.NewInsert().Model(&row).On("CONFLICT (tenant_id, user_id, event_id) DO NOTHING").Exec(ctx)
		if err != nil {
			return wrapErr("insert activity", err)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			out, created = row.toActivity(), true
			return nil
		}
		var stored activityRow
		err = tx.NewSelect().Model(&stored).
			Where("ae.tenant_id = ?", a.Scope.Tenant).Where("ae.user_id = ?", a.Scope.User).Where("ae.event_id = ?", a.EventID).
			Scan(ctx)
		if err != nil {
			return wrapErr("get activity", err)
		}
		out, created = stored.toActivity(), false
		if !out.SameAs(row.toActivity()) {
			return &ports.ActivityConflictError{EventID: a.EventID}
		}
		return nil
	})
	if err != nil {
		return profile.Activity{}, false, err
	}
	return out, created, nil
}

// ActivityTallies sums the user's events by kind and flow in one query; the flow
// name is that of the latest event with one.
func (s *ActivityStore) ActivityTallies(ctx context.Context, scope memory.Scope) ([]profile.ActivityTally, error) {
	var rows []struct {
		Kind          string          `bun:"kind"`
		FlowID        string          `bun:"flow_id"`
		Count         int             `bun:"n"`
		DurationSum   sql.NullFloat64 `bun:"duration_sum"`
		DurationCount int             `bun:"duration_count"`
		LastAt        time.Time       `bun:"last_at"`
		FlowName      sql.NullString  `bun:"flow_name"`
	}
	err := s.db.bun.NewRaw(`
		SELECT t.kind, t.flow_id, t.n, t.duration_sum, t.duration_count, t.last_at,
			(SELECT e.flow_name FROM user_activity_events AS e
				WHERE e.tenant_id = ?0 AND e.user_id = ?1 AND e.kind = t.kind AND e.flow_id = t.flow_id
					AND e.flow_name IS NOT NULL AND e.flow_name <> ''
				ORDER BY e.at DESC, e.event_id DESC LIMIT 1) AS flow_name
		FROM (
			SELECT kind, flow_id, count(*) AS n, sum(duration_h) AS duration_sum,
				count(duration_h) AS duration_count, max(at) AS last_at
			FROM user_activity_events
			WHERE tenant_id = ?0 AND user_id = ?1
			GROUP BY kind, flow_id
		) AS t
		ORDER BY t.kind, t.flow_id`, scope.Tenant, scope.User).Scan(ctx, &rows)
	if err != nil && classify(err) != classNotFound {
		return nil, wrapErr("tally activity", err)
	}
	out := make([]profile.ActivityTally, 0, len(rows))
	for _, r := range rows {
		out = append(out, profile.ActivityTally{
			Kind: profile.ActivityKind(r.Kind), FlowID: r.FlowID, FlowName: r.FlowName.String, Count: r.Count,
			DurationSum: r.DurationSum.Float64, DurationCount: r.DurationCount, LastAt: dbTime(r.LastAt),
		})
	}
	return out, nil
}

// PurgeUser removes the user's events.
func (s *ActivityStore) PurgeUser(ctx context.Context, scope memory.Scope) (map[string]int64, error) {
	return purgeScope(ctx, s.db, scope, map[string]string{"activity_events": "user_activity_events"})
}

type activityRow struct {
	bun.BaseModel `bun:"table:user_activity_events,alias:ae"`

	TenantID   string          `bun:"tenant_id,pk"`
	UserID     string          `bun:"user_id,pk"`
	EventID    string          `bun:"event_id,pk"`
	Kind       string          `bun:"kind"`
	At         time.Time       `bun:"at"`
	FlowID     string          `bun:"flow_id"`
	FlowName   string          `bun:"flow_name,nullzero"`
	DurationH  sql.NullFloat64 `bun:"duration_h"`
	ReceivedAt time.Time       `bun:"received_at"`
}

func toActivityRow(a profile.Activity) activityRow {
	return activityRow{
		TenantID: a.Scope.Tenant, UserID: a.Scope.User, EventID: a.EventID, Kind: string(a.Kind), At: dbTime(a.At),
		FlowID: a.FlowID, FlowName: a.FlowName, DurationH: sql.NullFloat64{Float64: a.DurationH, Valid: a.HasDuration},
		ReceivedAt: dbTime(a.ReceivedAt),
	}
}

func (r *activityRow) toActivity() profile.Activity {
	return profile.Activity{
		Scope: memory.Scope{Tenant: r.TenantID, User: r.UserID}, EventID: r.EventID, Kind: profile.ActivityKind(r.Kind),
		At: dbTime(r.At), FlowID: r.FlowID, FlowName: r.FlowName, DurationH: r.DurationH.Float64, HasDuration: r.DurationH.Valid,
		ReceivedAt: dbTime(r.ReceivedAt),
	}
}

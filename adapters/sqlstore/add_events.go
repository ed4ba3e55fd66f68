package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"engram/domain/addevent"
	"engram/domain/memory"
	"engram/ports"
)

// AddEventStore keeps the record of each add in add_events.
type AddEventStore struct {
	db *DB
}

var (
	_ ports.AddEventStore = (*AddEventStore)(nil)
	_ ports.UserPurger    = (*AddEventStore)(nil)
)

// NewAddEventStore serves ports.AddEventStore from db.
func NewAddEventStore(db *DB) *AddEventStore { return &AddEventStore{db: db} }

// Create inserts the add; a taken id is ErrConflict.
func (s *AddEventStore) Create(ctx context.Context, r addevent.Record) error {
	row, err := toAddEventRow(r)
	if err != nil {
		return err
	}
	return s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := s.db.guardWrite(ctx, tx, r.Scope); err != nil {
			return err
		}
		_, err := tx.NewInsert().Model(&row).Exec(ctx)
		return wrapErr("insert add event", err)
	})
}

// Get reads the tenant's add by its primary key; a user being erased is hidden.
func (s *AddEventStore) Get(ctx context.Context, tenant, id string) (addevent.Record, error) {
	var row addEventRow
	err := s.db.bun.NewSelect().Model(&row).
		Where("ae.id = ?", id).Where("ae.tenant_id = ?", tenant).
		Where(notErasingAdd).Scan(ctx)
	if err != nil {
		return addevent.Record{}, wrapErr("get add event", err)
	}
	return row.toRecord()
}

// notErasingAdd hides the adds of a user being erased (alias ae).
const notErasingAdd = `NOT EXISTS (SELECT 1 FROM jobs AS ej WHERE ej.tenant_id = ae.tenant_id
	AND ej.user_id = ae.user_id AND ej.kind = 'erase_user' AND ej.status IN ('QUEUED', 'RUNNING'))`

// Finish updates a PENDING add only, so two readers that resolve the same add
// at once store one outcome.
func (s *AddEventStore) Finish(ctx context.Context, r addevent.Record) (bool, error) {
	row, err := toAddEventRow(r)
	if err != nil {
		return false, err
	}
	var done bool
	err = s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Model(&row).Column("status", "results", "error", "updated_at").
			Where("id = ?", r.ID).Where("tenant_id = ?", r.Scope.Tenant).
			Where("status = ?", string(addevent.StatusPending)).Exec(ctx)
		if err != nil {
			return wrapErr("finish add event", err)
		}
		n, _ := res.RowsAffected()
		done = n == 1
		return nil
	})
	return done, err
}

// List pages through the tenant's (or one user's) adds, newest first.
func (s *AddEventStore) List(ctx context.Context, tenant string, q ports.AddEventQuery) ([]addevent.Record, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultListLimit
	}
	var rows []addEventRow
	sel := s.db.bun.NewSelect().Model(&rows).Where("ae.tenant_id = ?", tenant).Where(notErasingAdd)
	if q.User != "" {
		sel = sel.Where("ae.user_id = ?", q.User)
	}
	err := sel.OrderExpr("ae.created_at DESC, ae.id DESC").
		Limit(int64(min(limit, MaxListLimit))).Offset(int64(max(q.Offset, 0))).Scan(ctx)
	if err != nil {
		return nil, wrapErr("list add events", err)
	}
	out := make([]addevent.Record, 0, len(rows))
	for i := range rows {
		r, err := rows[i].toRecord()
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// PurgeUser removes the user's adds (erasure): their results hold memory text.
func (s *AddEventStore) PurgeUser(ctx context.Context, scope memory.Scope) (map[string]int64, error) {
	return purgeScope(ctx, s.db, scope, map[string]string{"add_events": "add_events"})
}

// addEventRow is one row of add_events.
type addEventRow struct {
	bun.BaseModel `bun:"table:add_events,alias:ae"`

	ID             string    `bun:"id,pk"`
	TenantID       string    `bun:"tenant_id"`
	UserID         string    `bun:"user_id"`
	ConversationID string    `bun:"conversation_id,nullzero"`
	MessageIDs     string    `bun:"message_ids"`
	Status         string    `bun:"status"`
	Results        string    `bun:"results"`
	Error          string    `bun:"error,nullzero"`
	CreatedAt      time.Time `bun:"created_at"`
	UpdatedAt      time.Time `bun:"updated_at"`
}

// addResultJSON is one result as stored; memory is in memory_events' form.
type addResultJSON struct {
	MemoryID string          `json:"memory_id"`
	Change   string          `json:"change"`
	Memory   json.RawMessage `json:"memory"`
}

func toAddEventRow(r addevent.Record) (addEventRow, error) {
	ids, err := json.Marshal(nonNil(r.MessageIDs))
	if err != nil {
		return addEventRow{}, fmt.Errorf("sqlstore: encode add event %s: %w", r.ID, err)
	}
	results := make([]addResultJSON, 0, len(r.Results))
	for _, res := range r.Results {
		st, err := marshalState(res.Memory)
		if err != nil {
			return addEventRow{}, err
		}
		results = append(results, addResultJSON{MemoryID: res.MemoryID, Change: string(res.Change), Memory: json.RawMessage(st)})
	}
	encoded, err := json.Marshal(results)
	if err != nil {
		return addEventRow{}, fmt.Errorf("sqlstore: encode add event %s: %w", r.ID, err)
	}
	return addEventRow{ID: r.ID, TenantID: r.Scope.Tenant, UserID: r.Scope.User, ConversationID: r.ConversationID,
		MessageIDs: string(ids), Status: string(r.Status), Results: string(encoded), Error: r.Error,
		CreatedAt: dbTime(r.CreatedAt), UpdatedAt: dbTime(r.UpdatedAt)}, nil
}

func nonNil(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids
}

func (row *addEventRow) toRecord() (addevent.Record, error) {
	r := addevent.Record{ID: row.ID, Scope: memory.Scope{Tenant: row.TenantID, User: row.UserID},
		ConversationID: row.ConversationID, Status: addevent.Status(row.Status), Error: row.Error,
		CreatedAt: dbTime(row.CreatedAt), UpdatedAt: dbTime(row.UpdatedAt)}
	if err := json.Unmarshal([]byte(row.MessageIDs), &r.MessageIDs); err != nil {
		return addevent.Record{}, fmt.Errorf("sqlstore: add event %s: message ids: %w", row.ID, err)
	}
	var results []addResultJSON
	if err := json.Unmarshal([]byte(row.Results), &results); err != nil {
		return addevent.Record{}, fmt.Errorf("sqlstore: add event %s: results: %w", row.ID, err)
	}
	for _, res := range results {
		st, err := unmarshalState(string(res.Memory))
		if err != nil {
			return addevent.Record{}, fmt.Errorf("sqlstore: add event %s: result %s: %w", row.ID, res.MemoryID, err)
		}
		r.Results = append(r.Results, addevent.Result{MemoryID: res.MemoryID, Change: addevent.Change(res.Change), Memory: st})
	}
	return r, nil
}

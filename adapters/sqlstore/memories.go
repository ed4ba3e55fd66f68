package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"engram/domain/memory"
	"engram/ports"
)

// MemoryStore keeps long-term memories and their events in long_term_memories and
// memory_events.
type MemoryStore struct {
	db      *DB
	lexical *lexicalHook // nil: no lexical index kept (lexical.go)
}

var _ ports.MemoryStore = (*MemoryStore)(nil)

// NewMemoryStore serves ports.MemoryStore from db.
func NewMemoryStore(db *DB) *MemoryStore { return &MemoryStore{db: db} }

// Listing bounds; MemoryQuery.Limit outside 1..MaxListLimit is brought inside.
const (
	DefaultListLimit = 100
	MaxListLimit     = 1000
)

// Get returns the memory with this key, active or not.
func (s *MemoryStore) Get(ctx context.Context, scope memory.Scope, key memory.Key) (memory.Memory, error) {
	var row memoryRow
	q := s.db.bun.NewSelect().Model(&row).
		Where("m.tenant_id = ?", scope.Tenant).
		Where("m.user_id = ?", scope.User).
		Where("m.memory_key = ?", key.String())
	if err := visible(q, scope).Scan(ctx); err != nil {
		return memory.Memory{}, wrapErr("get memory", err)
	}
	return memory.Restore(row.toState()), nil
}

// Update runs fn on the current memory inside one write transaction and stores
// the memory and its event together. On PostgreSQL the row is locked (FOR UPDATE)
// and a lost race on the first insert of a key runs fn again.
func (s *MemoryStore) Update(ctx context.Context, scope memory.Scope, key memory.Key,
	fn func(current *memory.Memory) (memory.Change, error),
) (memory.Memory, error) {
	var saved memory.Memory
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		current, err := s.loadForUpdate(ctx, tx, scope, key)
		if err != nil {
			return err
		}
		change, err := fn(current)
		if err != nil {
			return err
		}
		if err := checkChange(scope, key, current, change); err != nil {
			return err
		}
		row := toMemoryRow(change.Memory.State())
		if current == nil {
			if _, err := tx.NewInsert().Model(&row).Exec(ctx); err != nil {
				return wrapErr("insert memory", err)
			}
		} else {
			res, err := tx.NewUpdate().Model(&row).ExcludeColumn("id", "created_at").WherePK().Exec(ctx)
			if err != nil {
				return wrapErr("update memory", err)
			}
			if n, err := res.RowsAffected(); err == nil && n != 1 {
				return fmt.Errorf("sqlstore: update memory: %d rows changed, want 1: %w", n, ports.ErrConflict)
			}
		}
		ev, err := toEventRow(change.Event)
		if err != nil {
			return err
		}
		if _, err := tx.NewInsert().Model(&ev).Exec(ctx); err != nil {
			return wrapErr("insert memory event", err)
		}
		saved = memory.Restore(row.toState())
		if s.lexical != nil {
			return s.lexical.memoryWritten(ctx, tx, saved)
		}
		return nil
	})
	if err != nil {
		return memory.Memory{}, err
	}
	return saved, nil
}

// loadForUpdate is the start of every write of a memory: the erasure guard, then
// the current row (nil when the key has none), locked on PostgreSQL.
func (s *MemoryStore) loadForUpdate(ctx context.Context, tx bun.Tx, scope memory.Scope, key memory.Key) (*memory.Memory, error) {
	if err := s.db.guardWrite(ctx, tx, scope); err != nil {
		return nil, err
	}
	var row memoryRow
	q := tx.NewSelect().Model(&row).
		Where("m.tenant_id = ?", scope.Tenant).
		Where("m.user_id = ?", scope.User).
		Where("m.memory_key = ?", key.String())
	if s.db.dialect == DialectPostgres {
		q = q.For("UPDATE")
	}
	err := q.Scan(ctx)
	if classify(err) == classNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, wrapErr("load memory", err)
	}
	m := memory.Restore(row.toState())
	return &m, nil
}

// checkChange refuses a change that would land outside the scope and key being
// updated: a bug in a caller must not write into another user's memories.
func checkChange(scope memory.Scope, key memory.Key, current *memory.Memory, c memory.Change) error {
	st := c.Memory.State()
	switch {
	case st.Scope != scope || st.Key != key:
		return fmt.Errorf("sqlstore: update memory: the change is for %q/%q/%q, not %q/%q/%q",
			st.Scope.Tenant, st.Scope.User, st.Key, scope.Tenant, scope.User, key)
	case current != nil && st.ID != current.ID():
		return fmt.Errorf("sqlstore: update memory: the change renames memory %q to %q", current.ID(), st.ID)
	case st.ID == "":
		return fmt.Errorf("sqlstore: update memory: the memory has no id")
	case c.Event.ID == "":
		return fmt.Errorf("sqlstore: update memory: the event has no id")
	case c.Event.Scope != scope || c.Event.Key != key || c.Event.MemoryID != st.ID:
		return fmt.Errorf("sqlstore: update memory: the event is for another memory")
	}
	return nil
}

// List returns one page of the user's memories ordered by key. Every filter runs
// in SQL; one row more than the page tells whether another page follows.
func (s *MemoryStore) List(ctx context.Context, scope memory.Scope, q ports.MemoryQuery) (ports.MemoryPage, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultListLimit
	}
	limit = min(limit, MaxListLimit)

	var rows []memoryRow
	sel := s.db.bun.NewSelect().Model(&rows).
		Where("m.tenant_id = ?", scope.Tenant).
		Where("m.user_id = ?", scope.User)
	sel = withoutNoise(visible(sel, scope))
	if !q.IncludeInactive {
		sel = onlyLive(sel, q.Now)
	}
	if len(q.Types) > 0 {
		types := make([]string, len(q.Types))
		for i, t := range q.Types {
			types[i] = string(t)
		}
		sel = sel.Where("m.memory_type IN (?)", bun.List(types))
	}
	if q.Contains != "" {
		pattern := "%" + escapeLike(q.Contains) + "%"
		sel = sel.WhereGroup(" AND ", func(g *bun.SelectQuery) *bun.SelectQuery {
			return g.Where(containsSQL(s.db.dialect, "m.memory_key"), pattern).WhereOr(containsSQL(s.db.dialect, "m.content"), pattern)
		})
	}
	if !q.AfterKey.IsZero() {
		sel = sel.Where("m.memory_key > ?", q.AfterKey.String())
	}
	if err := sel.OrderExpr("m.memory_key ASC").Limit(int64(limit + 1)).Scan(ctx); err != nil {
		return ports.MemoryPage{}, wrapErr("list memories", err)
	}

	page := ports.MemoryPage{Items: make([]memory.Memory, 0, min(len(rows), limit))}
	for i := range rows {
		if i == limit {
			page.NextKey = page.Items[limit-1].Key()
			break
		}
		page.Items = append(page.Items, memory.Restore(rows[i].toState()))
	}
	return page, nil
}

// withoutNoise leaves out the keys of memory.NoiseRules (alias m).
func withoutNoise(q *bun.SelectQuery) *bun.SelectQuery {
	for _, rule := range memory.NoiseRules {
		q = q.Where(`m.memory_key NOT LIKE ? ESCAPE '\'`, escapeLike(rule.Prefix)+"%")
	}
	return q
}

// onlyLive keeps active memories that have not expired at now (alias m); a
// memory expires at the instant of expires_at, as memory.IsExpired says.
func onlyLive(q *bun.SelectQuery, now time.Time) *bun.SelectQuery {
	return q.Where("m.is_active = ?", true).
		WhereGroup(" AND ", func(g *bun.SelectQuery) *bun.SelectQuery {
			return g.Where("m.expires_at IS NULL").WhereOr("m.expires_at > ?", dbTime(now))
		})
}

// containsSQL is a case-insensitive LIKE that folds ASCII letters only, the same on
// both dialects: SQLite's LIKE folds ASCII only, and PostgreSQL's ILIKE does the
// same under the C collation whatever the database's locale. Text without case
// (Chinese) matches as it is.
func containsSQL(dialect Dialect, column string) string {
	if dialect == DialectPostgres {
		return column + ` COLLATE "C" ILIKE ? ESCAPE '\'`
	}
	return column + ` LIKE ? ESCAPE '\'`
}

// escapeLike makes every character of s literal in a LIKE pattern with ESCAPE '\'.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// History returns the events of one key, oldest first: ids are ULIDs, so id order
// is the order of the changes. The PURGE event of a purge is filed under the key's
// memory.PurgedKey and comes with them.
func (s *MemoryStore) History(ctx context.Context, scope memory.Scope, key memory.Key) ([]memory.Event, error) {
	return s.db.eventsWhere(ctx, scope, "memory_key", "memory history", key.String(), memory.PurgedKey(scope, key).String())
}

// eventsWhere lists the scope's events whose column holds one of values, oldest first.
func (db *DB) eventsWhere(ctx context.Context, scope memory.Scope, column, op string, values ...string) ([]memory.Event, error) {
	var rows []eventRow
	q := db.bun.NewSelect().Model(&rows).
		Where("e.tenant_id = ?", scope.Tenant).
		Where("e.user_id = ?", scope.User).
		Where("e.? IN (?)", bun.Ident(column), bun.List(values))
	if err := visible(q, scope).OrderExpr("e.id ASC").Scan(ctx); err != nil {
		return nil, wrapErr(op, err)
	}
	events := make([]memory.Event, 0, len(rows))
	for i := range rows {
		ev, err := rows[i].toEvent()
		if err != nil {
			return nil, err
		}
		events = append(events, ev)
	}
	return events, nil
}

// Event returns one event of the scope; another scope's event is not found.
func (s *MemoryStore) Event(ctx context.Context, scope memory.Scope, eventID string) (memory.Event, error) {
	var row eventRow
	q := s.db.bun.NewSelect().Model(&row).
		Where("e.id = ?", eventID).
		Where("e.tenant_id = ?", scope.Tenant).
		Where("e.user_id = ?", scope.User)
	if err := visible(q, scope).Scan(ctx); err != nil {
		return memory.Event{}, wrapErr("get memory event", err)
	}
	return row.toEvent()
}

// ---------------------------------------------------------------- rows

// memoryRow is one row of long_term_memories. Optional values are NULL when the
// domain's zero value says "absent" (nullzero).
type memoryRow struct {
	bun.BaseModel `bun:"table:long_term_memories,alias:m"`

	ID              string `bun:"id,pk"`
	TenantID        string `bun:"tenant_id"`
	UserID          string `bun:"user_id"`
	ConversationID  string `bun:"conversation_id,nullzero"`
	SourceMessageID string `bun:"source_message_id,nullzero"`
	SourceChannel   string `bun:"source_channel,nullzero"`

	MemoryKey  string  `bun:"memory_key"`
	MemoryType string  `bun:"memory_type"`
	Content    string  `bun:"content"`
	Importance int     `bun:"importance"`
	Confidence float64 `bun:"confidence"`

	IsActive       bool      `bun:"is_active"`
	LastAccessedAt time.Time `bun:"last_accessed_at,nullzero"`
	ExpiresAt      time.Time `bun:"expires_at,nullzero"`
	// TTLDays is NULL on rows written before lifetimes were kept (see toState).
	TTLDays *int `bun:"ttl_days"`
	Pinned  bool `bun:"pinned"`

	AgentID  string `bun:"agent_id,nullzero"`
	AppID    string `bun:"app_id,nullzero"`
	RunID    string `bun:"run_id,nullzero"`
	Metadata string `bun:"metadata,nullzero"` // compact JSON object (memory.Metadata)

	VectorStatus   string    `bun:"vector_status"`
	VectorSyncedAt time.Time `bun:"vector_synced_at,nullzero"`
	VectorError    string    `bun:"vector_error,nullzero"`
	VectorModel    string    `bun:"vector_model,nullzero"`
	VectorVersion  int       `bun:"vector_version,nullzero"`
	VectorTextHash string    `bun:"vector_text_hash,nullzero"`

	// Flags is NULL on rows written before flags were kept (see flagsFromRow).
	Flags *string `bun:"flags"`

	Version   int64     `bun:"version"`
	CreatedAt time.Time `bun:"created_at"`
	UpdatedAt time.Time `bun:"updated_at"`
}

func toMemoryRow(st memory.State) memoryRow {
	return memoryRow{
		ID:              st.ID,
		TenantID:        st.Scope.Tenant,
		UserID:          st.Scope.User,
		ConversationID:  st.Source.ConversationID,
		SourceMessageID: st.Source.MessageID,
		SourceChannel:   string(st.Source.Channel),
		MemoryKey:       st.Key.String(),
		MemoryType:      string(st.Type),
		Content:         st.Content,
		Importance:      st.Importance,
		Confidence:      st.Confidence,
		IsActive:        st.Active,
		LastAccessedAt:  dbTime(st.LastAccessedAt),
		ExpiresAt:       dbTime(st.ExpiresAt),
		TTLDays:         &st.TTLDays,
		Pinned:          st.Pinned,
		AgentID:         st.Attributes.AgentID,
		AppID:           st.Attributes.AppID,
		RunID:           st.Attributes.RunID,
		Metadata:        st.Attributes.Metadata.JSON(),
		VectorStatus:    string(st.Vector.Status),
		VectorSyncedAt:  dbTime(st.Vector.SyncedAt),
		VectorError:     st.Vector.Error,
		VectorModel:     st.Vector.Model,
		VectorVersion:   st.Vector.Version,
		VectorTextHash:  st.Vector.TextHash,
		Flags:           flagsToRow(st.Flags),
		Version:         st.Version,
		CreatedAt:       dbTime(st.CreatedAt),
		UpdatedAt:       dbTime(st.UpdatedAt),
	}
}

func (r *memoryRow) toState() memory.State {
	return memory.State{
		ID:         r.ID,
		Scope:      memory.Scope{Tenant: r.TenantID, User: r.UserID},
		Key:        memory.RestoreKey(r.MemoryKey),
		Type:       memory.Type(r.MemoryType),
		Content:    r.Content,
		Importance: r.Importance,
		Confidence: r.Confidence,
		Active:     r.IsActive,
		ExpiresAt:  dbTime(r.ExpiresAt),
		TTLDays:    ttlDaysFromRow(r.TTLDays, r.ExpiresAt, r.UpdatedAt),
		Pinned:     r.Pinned,
		Attributes: memory.Attributes{AgentID: r.AgentID, AppID: r.AppID, RunID: r.RunID,
			Metadata: memory.RestoreMetadata(r.Metadata)},
		LastAccessedAt: dbTime(r.LastAccessedAt),
		Source: memory.Source{
			Channel:        memory.Channel(r.SourceChannel),
			ConversationID: r.ConversationID,
			MessageID:      r.SourceMessageID,
		},
		Vector: memory.VectorState{
			Status:   memory.VectorStatus(r.VectorStatus),
			SyncedAt: dbTime(r.VectorSyncedAt),
			Error:    r.VectorError,
			Model:    r.VectorModel,
			Version:  r.VectorVersion,
			TextHash: r.VectorTextHash,
		},
		Flags:     flagsFromRow(r.Flags, r.Content),
		Version:   r.Version,
		CreatedAt: dbTime(r.CreatedAt),
		UpdatedAt: dbTime(r.UpdatedAt),
	}
}

// ttlDaysFromRow reads the ttl_days column; a row written before it was kept
// has NULL there, and its lifetime is what its expiry says.
func ttlDaysFromRow(col *int, expiresAt, updatedAt time.Time) int {
	if col == nil {
		return memory.RestoreTTLDays(expiresAt, updatedAt)
	}
	return *col
}

func flagsToRow(f memory.FlagSet) *string {
	s := f.String()
	return &s
}

// flagsFromRow reads the flags column. A row written before the column existed has
// NULL there: its content is classified now, so an old instruction-like memory is
// not shown unflagged.
func flagsFromRow(col *string, content string) memory.FlagSet {
	if col == nil {
		return memory.ContentFlags(content)
	}
	return memory.ParseFlagSet(*col)
}

// eventRow is one row of memory_events; Before and After hold stateJSON.
type eventRow struct {
	bun.BaseModel `bun:"table:memory_events,alias:e"`

	ID             string    `bun:"id,pk"`
	TenantID       string    `bun:"tenant_id"`
	UserID         string    `bun:"user_id"`
	MemoryKey      string    `bun:"memory_key"`
	MemoryID       string    `bun:"memory_id"`
	Op             string    `bun:"op"`
	Before         string    `bun:"before,nullzero"`
	After          string    `bun:"after"`
	Channel        string    `bun:"channel,nullzero"`
	ConversationID string    `bun:"conversation_id,nullzero"`
	MessageID      string    `bun:"message_id,nullzero"`
	At             time.Time `bun:"at"`
}

func toEventRow(e memory.Event) (eventRow, error) {
	row := eventRow{
		ID:             e.ID,
		TenantID:       e.Scope.Tenant,
		UserID:         e.Scope.User,
		MemoryKey:      e.Key.String(),
		MemoryID:       e.MemoryID,
		Op:             string(e.Op),
		Channel:        string(e.Source.Channel),
		ConversationID: e.Source.ConversationID,
		MessageID:      e.Source.MessageID,
		At:             dbTime(e.At),
	}
	after, err := marshalState(e.After)
	if err != nil {
		return eventRow{}, err
	}
	row.After = after
	if e.Before != nil {
		if row.Before, err = marshalState(*e.Before); err != nil {
			return eventRow{}, err
		}
	}
	return row, nil
}

func (r *eventRow) toEvent() (memory.Event, error) {
	e := memory.Event{
		ID:       r.ID,
		Scope:    memory.Scope{Tenant: r.TenantID, User: r.UserID},
		Key:      memory.RestoreKey(r.MemoryKey),
		MemoryID: r.MemoryID,
		Op:       memory.Op(r.Op),
		Source: memory.Source{
			Channel:        memory.Channel(r.Channel),
			ConversationID: r.ConversationID,
			MessageID:      r.MessageID,
		},
		At: dbTime(r.At),
	}
	after, err := unmarshalState(r.After)
	if err != nil {
		return memory.Event{}, fmt.Errorf("sqlstore: memory event %s: after: %w", r.ID, err)
	}
	e.After = after
	if r.Before != "" {
		before, err := unmarshalState(r.Before)
		if err != nil {
			return memory.Event{}, fmt.Errorf("sqlstore: memory event %s: before: %w", r.ID, err)
		}
		e.Before = &before
	}
	return e, nil
}

var _ ports.MemoryFinder = (*MemoryStore)(nil)

// notErasingMemory hides the memories of a user being erased in a read that does
// not name the user (alias m).
const notErasingMemory = `NOT EXISTS (SELECT 1 FROM jobs AS ej WHERE ej.tenant_id = m.tenant_id
	AND ej.user_id = m.user_id AND ej.kind = 'erase_user' AND ej.status IN ('QUEUED', 'RUNNING'))`

// ByID returns the tenant's memory with this id, active or not, found through
// the primary key.
func (s *MemoryStore) ByID(ctx context.Context, tenant, id string) (memory.Memory, error) {
	var row memoryRow
	err := s.db.bun.NewSelect().Model(&row).
		Where("m.id = ?", id).
		Where("m.tenant_id = ?", tenant).
		Where(notErasingMemory).
		Scan(ctx)
	if err != nil {
		return memory.Memory{}, wrapErr("get memory by id", err)
	}
	return memory.Restore(row.toState()), nil
}

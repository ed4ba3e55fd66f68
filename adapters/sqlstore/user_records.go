package sqlstore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/ports"
)

// UserRecords serves ports.UserRecords: a user's rows of the truth tables, every
// column but the owner's ids and the bookkeeping the server rebuilds, so that a
// column a later migration adds is carried without a change here. Column types are
// read from the database's catalogue, so SQLite and PostgreSQL give the same
// document for the same data and take each other's.
type UserRecords struct {
	db    *DB
	clock ports.Clock

	mu      sync.Mutex
	columns map[string][]recordColumn // by table, read once
}

var _ ports.UserRecords = (*UserRecords)(nil)

// NewUserRecords serves ports.UserRecords from db; clock dates the vector work
// an import queues.
func NewUserRecords(db *DB, clock ports.Clock) *UserRecords {
	return &UserRecords{db: db, clock: clock, columns: map[string][]recordColumn{}}
}

// recordTable is where one section's rows live and how they are told apart.
type recordTable struct {
	section string
	table   string
	// owner selects the user's rows; its arguments are the tenant and the user,
	// as many times as it has placeholders (byUser, or the audit's two roles).
	owner string
	order string
	// owned are the columns that hold the user's id and are filled from the
	// scope on import (besides tenant_id, always dropped).
	owned []string
	// kept are columns dropped from the records as bookkeeping (prefixes).
	kept []string
	// json columns hold JSON documents: the record carries the value itself.
	json []string
	// restore is the ON CONFLICT clause: "" keeps the stored row as it is.
	restore string
	// vectors: an imported row is queued for its vector (DIRTY by the column's
	// default), queued now, so the backlog's age is the import's.
	vectors bool
}

const byUser = "tenant_id = ? AND user_id = ?"

// Audit entries are about the user as target or as actor; the log's own record of
// exports and imports is left out, so that an export does not change the next one.
const auditOwner = "tenant_id = ? AND (target_user = ? OR actor = ?) AND action NOT LIKE 'user.export%' AND action NOT LIKE 'user.import%'"

// recordTables are the sections in document order. Claims, vector state and fold
// leases are the workers' and are rebuilt after an import (vectors DIRTY, lexical
// documents indexed again); sessions travel through the session store, which may
// be Redis.
var recordTables = []recordTable{
	{section: ports.RecordMemories, table: "long_term_memories", owner: byUser, order: "id", owned: []string{"user_id"}, kept: []string{"vector_"}, vectors: true},
	{section: ports.RecordMemoryHistory, table: "memory_events", owner: byUser, order: "id", owned: []string{"user_id"}, json: []string{"before", "after"}},
	{section: ports.RecordMessages, table: "conversation_messages", owner: byUser, order: "id", owned: []string{"user_id"}, kept: []string{"vector_", "claimed_by", "claim_until"}, vectors: true},
	{section: ports.RecordProfile, table: "user_profiles", owner: byUser, order: "user_id", owned: []string{"user_id"},
		json: []string{"role_tags", "favorite_workflows", "preferred_work_hours", "work_style_tags", "derived_work_style", "common_topics", "expertise_areas", "field_sources"}},
	{section: ports.RecordOrg, table: "org_members", owner: byUser, order: "user_id", owned: []string{"user_id"}},
	{section: ports.RecordNameKeys, table: "org_name_keys", owner: byUser, order: "source, name_key", owned: []string{"user_id"}},
	{section: ports.RecordActivity, table: "user_activity_events", owner: byUser, order: "event_id", owned: []string{"user_id"}},
	{section: ports.RecordReports, table: "profile_reports", owner: byUser, order: "id", owned: []string{"user_id"}, json: []string{"facts", "facts_used"}},
	{section: ports.RecordTraces, table: "context_traces", owner: byUser, order: "id", owned: []string{"user_id"}, json: []string{"body"}},
	// An erasure replaced the user's id in their audit entries by a pseudonym; an
	// import gives it back to those entries (same id, time and action) and to no
	// others.
	{section: ports.RecordAudit, table: "profile_audit", owner: auditOwner, order: "id",
		restore: `ON CONFLICT (id) DO UPDATE SET actor = EXCLUDED.actor, target_user = EXCLUDED.target_user
			WHERE profile_audit.at = EXCLUDED.at AND profile_audit.action = EXCLUDED.action
			AND (profile_audit.actor = ? OR profile_audit.target_user = ?)`},
	{section: ports.RecordAgentConversations, table: "agent_conversations", owner: byUser, order: "id", owned: []string{"user_id"}, json: []string{"metadata"}},
	{section: ports.RecordAgentItems, table: "agent_conversation_items", owner: byUser, order: "conversation_id, seq", owned: []string{"user_id"}},
	{section: ports.RecordAdds, table: "add_events", owner: byUser, order: "id", owned: []string{"user_id"}, json: []string{"message_ids", "results"}},
}

// columnKind is how a column's values are converted.
type columnKind int

const (
	kindText columnKind = iota
	kindTime
	kindBool
	kindInt
	kindFloat
	kindJSON
)

type recordColumn struct {
	name string
	kind columnKind
}

func (t recordTable) ownerArgs(scope memory.Scope) []any {
	args := []any{scope.Tenant}
	for range strings.Count(t.owner, "?") - 1 {
		args = append(args, scope.User)
	}
	return args
}

// ExportUser reads every section in one read transaction, so the document is one
// moment's state.
func (r *UserRecords) ExportUser(ctx context.Context, scope memory.Scope) (map[string][]ports.Record, error) {
	out := make(map[string][]ports.Record, len(recordTables))
	err := r.db.bun.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, t := range recordTables {
			records, err := r.exportTable(ctx, tx, t, scope)
			if err != nil {
				return err
			}
			out[t.section] = records
		}
		return nil
	})
	return out, wrapErr("export user", err)
}

func (r *UserRecords) exportTable(ctx context.Context, q bun.IDB, t recordTable, scope memory.Scope) ([]ports.Record, error) {
	cols, err := r.tableColumns(ctx, t)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
	}
	var rows []map[string]any
	query := "SELECT " + strings.Join(names, ", ") + " FROM " + t.table + " WHERE " + t.owner + " ORDER BY " + t.order
	if err := q.NewRaw(query, t.ownerArgs(scope)...).Scan(ctx, &rows); err != nil {
		return nil, wrapErr("export "+t.table, err)
	}
	records := make([]ports.Record, 0, len(rows))
	for _, row := range rows {
		rec := make(ports.Record, len(cols))
		for _, c := range cols {
			v, err := fromColumn(c, row[c.name])
			if err != nil {
				return nil, fmt.Errorf("sqlstore: export %s.%s: %w", t.table, c.name, err)
			}
			rec[c.name] = v
		}
		records = append(records, rec)
	}
	return records, nil
}

// ImportUser writes every section in one write transaction under the erasure
// guard.
func (r *UserRecords) ImportUser(ctx context.Context, scope memory.Scope, sections map[string][]ports.Record) (map[string]int, error) {
	type prepared struct {
		t    recordTable
		cols []recordColumn
		rows [][]any
	}
	var plan []prepared
	var bad []invalid.FieldError
	for _, t := range recordTables {
		cols, err := r.tableColumns(ctx, t)
		if err != nil {
			return nil, err
		}
		rows, fields := toRows(t, cols, scope, sections[t.section])
		bad = append(bad, fields...)
		plan = append(plan, prepared{t: t, cols: cols, rows: rows})
	}
	if len(bad) > 0 {
		return nil, &invalid.Error{Fields: bad}
	}
	var written map[string]int
	err := r.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		written = make(map[string]int, len(plan))
		if err := r.db.guardWrite(ctx, tx, scope); err != nil {
			return err
		}
		now := dbTime(r.clock.Now())
		for _, p := range plan {
			n, err := insertRecords(ctx, tx, p.t, p.cols, scope, p.rows, now)
			if err != nil {
				return err
			}
			written[p.t.section] = n
		}
		return nil
	})
	if err != nil {
		return nil, wrapErr("import user", err)
	}
	return written, nil
}

// insertRecords inserts rows one by one (a user's data, not a bulk load), each
// kept when its key is stored, and counts those written.
func insertRecords(ctx context.Context, tx bun.Tx, t recordTable, cols []recordColumn, scope memory.Scope, rows [][]any, now time.Time) (int, error) {
	if len(rows) == 0 {
		return 0, nil
	}
	names, lead := []string{"tenant_id"}, []any{scope.Tenant}
	if t.vectors {
		names, lead = append(names, "vector_queued_at"), append(lead, now)
	}
	for _, c := range cols {
		names = append(names, c.name)
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(names)), ", ")
	conflict, extra := "ON CONFLICT DO NOTHING", []any(nil)
	if t.restore != "" {
		fp := scope.Fingerprint()
		conflict, extra = t.restore, []any{fp, fp}
	}
	query := "INSERT INTO " + t.table + " (" + strings.Join(names, ", ") + ") VALUES (" + marks + ") " + conflict
	written := 0
	for _, row := range rows {
		args := append(append(append([]any{}, lead...), row...), extra...)
		res, err := tx.ExecContext(ctx, query, args...)
		if err != nil {
			return written, wrapErr("import "+t.table, err)
		}
		if n, err := res.RowsAffected(); err == nil && n > 0 {
			written++
		}
	}
	return written, nil
}

// toRows converts a section's records into column values in cols' order, naming
// every value that does not fit.
func toRows(t recordTable, cols []recordColumn, scope memory.Scope, records []ports.Record) ([][]any, []invalid.FieldError) {
	var bad []invalid.FieldError
	rows := make([][]any, 0, len(records))
	for i, rec := range records {
		at := fmt.Sprintf("%s[%d]", t.section, i)
		for name := range rec {
			if !slices.ContainsFunc(cols, func(c recordColumn) bool { return c.name == name }) {
				bad = append(bad, invalid.FieldError{Field: at + "." + name, Problem: "is not a field of " + t.section + " in this format version"})
			}
		}
		row := make([]any, len(cols))
		for j, c := range cols {
			v, err := toColumn(c, rec[c.name])
			if slices.Contains(t.owned, c.name) {
				v, err = scope.User, nil
				if got, ok := rec[c.name].(string); ok && got != scope.User {
					err = fmt.Errorf("must be %q, the user the import is for", scope.User)
				}
			}
			if err != nil {
				bad = append(bad, invalid.FieldError{Field: at + "." + c.name, Problem: err.Error(), Value: rec[c.name]})
			}
			row[j] = v
		}
		if t.section == ports.RecordAudit && !slices.Contains([]any{rec["actor"], rec["target_user"]}, any(scope.User)) {
			bad = append(bad, invalid.FieldError{Field: at, Problem: fmt.Sprintf("is not about %q: its actor or target_user must be the user", scope.User)})
		}
		rows = append(rows, row)
	}
	return rows, bad
}

// tableColumns are the table's exported columns with their kinds, from the
// catalogue, in the table's order.
func (r *UserRecords) tableColumns(ctx context.Context, t recordTable) ([]recordColumn, error) {
	r.mu.Lock()
	cols, ok := r.columns[t.table]
	r.mu.Unlock()
	if ok {
		return cols, nil
	}
	type catalogRow struct {
		Name string `bun:"name"`
		Type string `bun:"type"`
	}
	var rows []catalogRow
	query := "SELECT name, type FROM pragma_table_info(?) ORDER BY cid"
	if r.db.dialect == DialectPostgres {
		query = `SELECT column_name AS name, data_type AS type FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position`
	}
	if err := r.db.bun.NewRaw(query, t.table).Scan(ctx, &rows); err != nil {
		return nil, wrapErr("columns of "+t.table, err)
	}
	for _, row := range rows {
		if row.Name == "tenant_id" || slices.ContainsFunc(t.kept, func(p string) bool { return strings.HasPrefix(row.Name, p) }) {
			continue
		}
		kind := kindOf(row.Type)
		if slices.Contains(t.json, row.Name) {
			kind = kindJSON
		}
		cols = append(cols, recordColumn{name: row.Name, kind: kind})
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("sqlstore: table %s has no columns: %w", t.table, ports.ErrUnavailable)
	}
	r.mu.Lock()
	r.columns[t.table] = cols
	r.mu.Unlock()
	return cols, nil
}

func kindOf(declared string) columnKind {
	d := strings.ToLower(declared)
	switch {
	case strings.Contains(d, "timestamp"):
		return kindTime
	case strings.Contains(d, "bool"):
		return kindBool
	case strings.Contains(d, "int"):
		return kindInt
	case strings.Contains(d, "real"), strings.Contains(d, "double"), strings.Contains(d, "numeric"), strings.Contains(d, "float"):
		return kindFloat
	}
	return kindText
}

// Layouts a time column may come back in: bun's SQLite text, and RFC 3339.
var timeLayouts = []string{"2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05.999999999Z07:00", time.RFC3339Nano}

// columnCodec converts one kind of column: read turns what the driver gave into
// the record's value (false: a type the column cannot hold); write turns a
// record's value, as exported or as decoded from JSON, into the column's.
type columnCodec struct {
	read  func(v any) (any, bool)
	write func(v any) (any, error)
}

var codecs = map[columnKind]columnCodec{
	kindText:  {read: readText, write: writeText},
	kindTime:  {read: readTime, write: func(v any) (any, error) { return toTime(v) }},
	kindBool:  {read: readBool, write: writeBool},
	kindInt:   {read: readInt, write: writeInt},
	kindFloat: {read: readFloat, write: writeFloat},
	kindJSON:  {read: readJSON, write: writeJSON},
}

// fromColumn converts a value read from the database into the record's form.
func fromColumn(c recordColumn, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	if b, ok := v.([]byte); ok {
		v = string(b)
	}
	out, ok := codecs[c.kind].read(v)
	if !ok {
		return nil, fmt.Errorf("unexpected %T", v)
	}
	return out, nil
}

// toColumn converts a record's value into a value for the column.
func toColumn(c recordColumn, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	if n, ok := v.(json.Number); ok && c.kind != kindJSON {
		f, err := n.Float64()
		if err != nil {
			return nil, fmt.Errorf("must be a number")
		}
		v = f
	}
	return codecs[c.kind].write(v)
}

func readText(v any) (any, bool) { s, ok := v.(string); return s, ok }

func writeText(v any) (any, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	return nil, fmt.Errorf("must be a string")
}

func readTime(v any) (any, bool) {
	t, err := toTime(v)
	return t, err == nil
}

func toTime(v any) (time.Time, error) {
	switch t := v.(type) {
	case time.Time:
		return dbTime(t), nil
	case string:
		for _, layout := range timeLayouts {
			if at, err := time.Parse(layout, t); err == nil {
				return dbTime(at), nil
			}
		}
	}
	return time.Time{}, fmt.Errorf("must be an RFC 3339 time such as 2026-03-01T09:00:00Z")
}

// readBool takes SQLite's 0 and 1 too.
func readBool(v any) (any, bool) {
	switch t := v.(type) {
	case bool:
		return t, true
	case int64:
		return t != 0, true
	}
	return nil, false
}

func writeBool(v any) (any, error) {
	if b, ok := v.(bool); ok {
		return b, nil
	}
	return nil, fmt.Errorf("must be true or false")
}

func readInt(v any) (any, bool) {
	switch t := v.(type) {
	case int64:
		return t, true
	case float64:
		return int64(t), true
	}
	return nil, false
}

// writeInt takes a whole float64 (JSON's numbers) that no rounding changed.
func writeInt(v any) (any, error) {
	switch t := v.(type) {
	case int64:
		return t, nil
	case float64:
		if t == math.Trunc(t) && math.Abs(t) <= 1<<53 {
			return int64(t), nil
		}
	}
	return nil, fmt.Errorf("must be a whole number")
}

func readFloat(v any) (any, bool) {
	switch t := v.(type) {
	case float64:
		return t, true
	case float32:
		return float64(t), true
	case int64:
		return float64(t), true
	}
	return nil, false
}

func writeFloat(v any) (any, error) {
	switch t := v.(type) {
	case float64:
		return t, nil
	case int64:
		return float64(t), nil
	}
	return nil, fmt.Errorf("must be a number")
}

// readJSON parses the stored document, numbers kept as written.
func readJSON(v any) (any, bool) {
	s, ok := v.(string)
	if !ok {
		return nil, false
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, false
	}
	return doc, true
}

func writeJSON(v any) (any, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("must be a JSON value")
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

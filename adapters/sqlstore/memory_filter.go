package sqlstore

import (
	"context"
	"strings"

	"github.com/uptrace/bun"

	"engram/domain/memory"
	"engram/ports"
)

// Find returns one page of the tenant's memories matching the filter, newest
// first, and the number of matches. The filter becomes one WHERE fragment
// (filterSQL); the count runs the same WHERE without the page.
func (s *MemoryStore) Find(ctx context.Context, tenant string, q ports.FindQuery) (ports.FoundPage, error) {
	if err := q.Filter.Validate(); err != nil {
		return ports.FoundPage{}, err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultListLimit
	}
	limit = min(limit, MaxListLimit)
	where, args := filterSQL(s.db.dialect, q.Filter)
	scoped := func(sel *bun.SelectQuery) *bun.SelectQuery {
		sel = sel.Where("m.tenant_id = ?", tenant).Where(notErasingMemory).Where(where, args...)
		sel = withoutNoise(sel)
		if !q.IncludeInactive {
			sel = onlyLive(sel, q.Now)
		}
		return sel
	}
	total, err := scoped(s.db.bun.NewSelect().Model((*memoryRow)(nil))).Count(ctx)
	if err != nil {
		return ports.FoundPage{}, wrapErr("count memories", err)
	}
	var rows []memoryRow
	err = scoped(s.db.bun.NewSelect().Model(&rows)).
		OrderExpr("m.created_at DESC, m.id DESC").
		Limit(int64(limit)).Offset(int64(max(q.Offset, 0))).
		Scan(ctx)
	if err != nil {
		return ports.FoundPage{}, wrapErr("find memories", err)
	}
	page := ports.FoundPage{Items: make([]memory.Memory, 0, len(rows)), Total: int(total)}
	for i := range rows {
		page.Items = append(page.Items, memory.Restore(rows[i].toState()))
	}
	return page, nil
}

// filterColumns are the columns of long_term_memories the filter fields name.
var filterColumns = map[memory.Field]string{
	memory.FieldUser:      "m.user_id",
	memory.FieldAgent:     "m.agent_id",
	memory.FieldApp:       "m.app_id",
	memory.FieldRun:       "m.run_id",
	memory.FieldID:        "m.id",
	memory.FieldType:      "m.memory_type",
	memory.FieldCreatedAt: "m.created_at",
	memory.FieldUpdatedAt: "m.updated_at",
	memory.FieldExpiresAt: "m.expires_at",
}

// sqlFilter writes a validated memory.Filter as a WHERE fragment with ?
// placeholders, the same on both dialects except for metadata (JSON functions).
type sqlFilter struct {
	dialect Dialect
	sb      strings.Builder
	args    []any
}

// filterSQL is f as a WHERE fragment over alias m and its arguments.
func filterSQL(dialect Dialect, f memory.Filter) (string, []any) {
	b := &sqlFilter{dialect: dialect}
	b.node(f)
	return b.sb.String(), b.args
}

func (b *sqlFilter) write(sql string, args ...any) {
	b.sb.WriteString(sql)
	b.args = append(b.args, args...)
}

func (b *sqlFilter) node(f memory.Filter) {
	switch f.Op {
	case memory.FilterAnd, memory.FilterOr:
		b.write("(")
		for i, p := range f.Parts {
			if i > 0 {
				b.write(" " + strings.ToUpper(string(f.Op)) + " ")
			}
			b.node(p)
		}
		b.write(")")
	case memory.FilterNot:
		b.not(func() { b.node(f.Parts[0]) })
	case memory.FilterMatch:
		b.condition(f.Cond)
	default: // FilterAll
		b.write("1 = 1")
	}
}

// not negates a fragment that may be NULL (a comparison with a NULL column): NOT
// of unknown is unknown, which would drop the row, where "not matching" must
// keep it.
func (b *sqlFilter) not(inner func()) {
	b.write("NOT COALESCE((")
	inner()
	b.write("), FALSE)")
}

func (b *sqlFilter) condition(c memory.Condition) {
	switch c.Field {
	case memory.FieldMetadata:
		b.metadata(c)
	case memory.FieldContent:
		b.write(containsSQL(b.dialect, "m.content"), "%"+escapeLike(c.Values[0])+"%")
	case memory.FieldCreatedAt, memory.FieldUpdatedAt, memory.FieldExpiresAt:
		values := make([]any, len(c.Times))
		for i, t := range c.Times {
			values[i] = dbTime(t)
		}
		b.column(filterColumns[c.Field], c.Cmp, values)
	default:
		values := make([]any, len(c.Values))
		for i, v := range c.Values {
			values[i] = v
		}
		b.column(filterColumns[c.Field], c.Cmp, values)
	}
}

// columnOps are the comparisons of a column with one value.
var columnOps = map[memory.Comparison]string{
	memory.CmpEq: " = ?", memory.CmpContains: " = ?",
	memory.CmpGt: " > ?", memory.CmpGte: " >= ?", memory.CmpLt: " < ?", memory.CmpLte: " <= ?",
}

// column compares a column; ne and nin keep the rows where it is NULL.
func (b *sqlFilter) column(col string, cmp memory.Comparison, values []any) {
	switch cmp {
	case memory.CmpNe:
		b.write("("+col+" IS NULL OR "+col+" <> ?)", values[0])
	case memory.CmpIn:
		b.write(col+" IN ("+placeholders(len(values))+")", values...)
	case memory.CmpNotIn:
		b.write("("+col+" IS NULL OR "+col+" NOT IN ("+placeholders(len(values))+"))", values...)
	case memory.CmpAny:
		b.write(col + " IS NOT NULL")
	default:
		b.write(col+columnOps[cmp], values[0])
	}
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// metadata compares one top-level key of the metadata. eq compares JSON values
// (type and value: "1" is not 1); ne and nin keep memories without the key.
func (b *sqlFilter) metadata(c memory.Condition) {
	switch c.Cmp {
	case memory.CmpEq:
		b.metadataEq(c.Key, c.Values[0])
	case memory.CmpIn:
		b.metadataIn(c.Key, c.Values)
	case memory.CmpNe:
		b.not(func() { b.metadataEq(c.Key, c.Values[0]) })
	case memory.CmpNotIn:
		b.not(func() { b.metadataIn(c.Key, c.Values) })
	case memory.CmpAny:
		b.metadataPresent(c.Key)
	case memory.CmpContains:
		b.metadataContains(c.Key, c.Values[0])
	}
}

func (b *sqlFilter) metadataIn(key string, values []string) {
	b.write("(")
	for i, v := range values {
		if i > 0 {
			b.write(" OR ")
		}
		b.metadataEq(key, v)
	}
	b.write(")")
}

// jsonPath is SQLite's path to a top-level key (keys hold no '"' or '\').
func jsonPath(key string) string { return `$."` + key + `"` }

func (b *sqlFilter) metadataEq(key, value string) {
	if b.dialect == DialectPostgres {
		b.write("(CAST(m.metadata AS jsonb) -> ?) = CAST(? AS jsonb)", key, value)
		return
	}
	b.write("(json_type(m.metadata, ?) = json_type(?) AND json_extract(m.metadata, ?) = json_extract(?, '$'))",
		jsonPath(key), value, jsonPath(key), value)
}

func (b *sqlFilter) metadataPresent(key string) {
	if b.dialect == DialectPostgres {
		b.write("(CAST(m.metadata AS jsonb) -> ?) IS NOT NULL", key)
		return
	}
	b.write("json_type(m.metadata, ?) IS NOT NULL", jsonPath(key))
}

// metadataContains matches a string value holding text, ASCII letters folded.
func (b *sqlFilter) metadataContains(key, text string) {
	pattern := "%" + escapeLike(text) + "%"
	if b.dialect == DialectPostgres {
		b.write(`(jsonb_typeof(CAST(m.metadata AS jsonb) -> ?) = 'string' AND `+
			containsSQL(b.dialect, "(CAST(m.metadata AS jsonb) ->> ?)")+")", key, key, pattern)
		return
	}
	b.write("(json_type(m.metadata, ?) = 'text' AND "+containsSQL(b.dialect, "json_extract(m.metadata, ?)")+")",
		jsonPath(key), jsonPath(key), pattern)
}

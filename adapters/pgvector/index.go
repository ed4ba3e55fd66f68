// Package pgvector implements ports.VectorIndex on PostgreSQL with the pgvector
// extension, in the truth store's own database: no other service to run.
//
// One table per embedding model and dimension (TableName), with a vector(dim)
// column, the filter columns, a B-tree on (tenant, user, kind, at) and an HNSW
// index with cosine distance. Every filter of a search is in the WHERE clause of
// the one query that ranks, so another tenant's or user's vectors are never
// candidates. How a search runs depends on how many vectors the user has:
//
//   - up to Options.ExactThreshold, exactly: the user's rows are read through the
//     B-tree and every distance computed (a MATERIALIZED CTE keeps the planner off
//     the HNSW index, whose post-filtering could return fewer hits than the user
//     has when the user is a small part of the table);
//   - above it, through HNSW with pgvector 0.8's iterative index scan
//     (hnsw.iterative_scan = relaxed_order), which keeps walking the graph until
//     the filtered results fill the limit, then re-sorted by exact distance.
//
// docs/BENCHMARKS.md ("Vector indexing") has the measurements behind the default.
//
// Errors leave the package as *invalid.Error (the request is unusable) or wrap
// ports.ErrUnavailable (the database cannot answer); no driver error type escapes.
// This package must not import other adapters, app/ or bootstrap/.
package pgvector

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	pgv "github.com/pgvector/pgvector-go"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"

	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/domain/vector"
	"engram/ports"
)

var _ ports.VectorIndex = (*Index)(nil)

// Defaults of Options.
const (
	DefaultExactThreshold = 2000
	DefaultHNSWM          = 16
	DefaultEfConstruction = 64
	DefaultEfSearch       = 100
	DefaultMaxScanTuples  = 100000
	DefaultCountTTL       = 30 * time.Second
	// MaxDimension is what pgvector's HNSW index accepts for vector(n).
	MaxDimension = 2000
)

// Options configure the index. Model and Dimension are required.
type Options struct {
	Model     string // the embedder's Model()
	Dimension int    // the embedder's Dimension()
	// ExactThreshold: users with at most this many vectors are searched exactly;
	// 0 means DefaultExactThreshold, negative means always exactly.
	ExactThreshold int
	// HNSWM and EfConstruction build the HNSW index (pgvector's defaults 16 and 64).
	HNSWM, EfConstruction int
	// EfSearch is hnsw.ef_search, raised to the limit when that is larger.
	EfSearch int
	// MaxScanTuples bounds an iterative scan (hnsw.max_scan_tuples).
	MaxScanTuples int
	// CountTTL is how long a user's vector count is trusted for choosing the path.
	CountTTL time.Duration
}

func (o Options) withDefaults() Options {
	if o.ExactThreshold == 0 {
		o.ExactThreshold = DefaultExactThreshold
	}
	if o.HNSWM <= 0 {
		o.HNSWM = DefaultHNSWM
	}
	if o.EfConstruction <= 0 {
		o.EfConstruction = DefaultEfConstruction
	}
	if o.EfSearch <= 0 {
		o.EfSearch = DefaultEfSearch
	}
	if o.MaxScanTuples <= 0 {
		o.MaxScanTuples = DefaultMaxScanTuples
	}
	if o.CountTTL <= 0 {
		o.CountTTL = DefaultCountTTL
	}
	return o
}

// Index is the pgvector index of one model. Safe for concurrent use.
type Index struct {
	db        *bun.DB
	opts      Options
	table     string
	iterative bool // pgvector ≥ 0.8: iterative index scans

	mu     sync.Mutex
	counts map[[2]string]userCount
}

type userCount struct {
	n  int
	at time.Time
}

// TableName is the table of a model and dimension: readable, at most 63 bytes, and
// distinct for distinct models (a hash of the model name is part of it).
func TableName(model string, dim int) string {
	sum := sha256.Sum256([]byte(model))
	var slug strings.Builder
	for _, r := range strings.ToLower(model) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			slug.WriteRune(r)
		default:
			if s := slug.String(); s != "" && s[len(s)-1] != '_' {
				slug.WriteByte('_')
			}
		}
	}
	s := strings.Trim(slug.String(), "_")
	if len(s) > 30 {
		s = s[:30]
	}
	return fmt.Sprintf("vectors_%s_d%d_%s", s, dim, hex.EncodeToString(sum[:4]))
}

// Open prepares the table of opts.Model and opts.Dimension (creating the vector
// extension, the table and its indexes when missing) and returns the index.
func Open(ctx context.Context, db *bun.DB, opts Options) (*Index, error) {
	opts = opts.withDefaults()
	var errs []error
	if strings.TrimSpace(opts.Model) == "" {
		errs = append(errs, invalid.Field("model", "must name the embedding model"))
	}
	if opts.Dimension < 1 || opts.Dimension > MaxDimension {
		errs = append(errs, invalid.FieldValue("dimension", opts.Dimension, "must be 1 to %d (pgvector's HNSW limit), got %d", MaxDimension, opts.Dimension))
	}
	if err := invalid.Join(errs...); err != nil {
		return nil, err
	}
	ix := &Index{db: db, opts: opts, table: TableName(opts.Model, opts.Dimension), counts: map[[2]string]userCount{}}
	version, err := ix.ensureExtension(ctx)
	if err != nil {
		return nil, err
	}
	ix.iterative = atLeast(version, 0, 8)
	if err := ix.ensureTable(ctx); err != nil {
		return nil, err
	}
	return ix, nil
}

// Table is the table this index reads and writes.
func (ix *Index) Table() string { return ix.table }

// Ping checks that the table answers (readiness probes).
func (ix *Index) Ping(ctx context.Context) error {
	_, err := ix.db.NewRaw("SELECT 1 FROM ? LIMIT 1", bun.Ident(ix.table)).Exec(ctx)
	return wrap("ping", err)
}

func (ix *Index) ensureExtension(ctx context.Context) (string, error) {
	var version string
	err := ix.db.NewRaw("SELECT extversion FROM pg_extension WHERE extname = 'vector'").Scan(ctx, &version)
	if errors.Is(err, sql.ErrNoRows) {
		if _, cerr := ix.db.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS vector"); cerr != nil {
			return "", fmt.Errorf("pgvector: the vector extension is not installed and cannot be created (%v); "+
				"run CREATE EXTENSION vector as a superuser in this database", cerr)
		}
		err = ix.db.NewRaw("SELECT extversion FROM pg_extension WHERE extname = 'vector'").Scan(ctx, &version)
	}
	if err != nil {
		return "", wrap("check the vector extension", err)
	}
	return version, nil
}

// ensureTable creates the table, its indexes and its registry row under an
// advisory lock, so processes starting together do not race in the catalog.
func (ix *Index) ensureTable(ctx context.Context) error {
	t := bun.Ident(ix.table)
	return wrap("create vector table", ix.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		stmts := []struct {
			q    string
			args []any
		}{
			{"SELECT pg_advisory_xact_lock(hashtext('engram.pgvector.tables'))", nil},
			{`CREATE TABLE IF NOT EXISTS vector_tables (
				table_name TEXT PRIMARY KEY, model TEXT NOT NULL, dim INTEGER NOT NULL, created_at TIMESTAMPTZ NOT NULL DEFAULT now())`, nil},
			{`CREATE TABLE IF NOT EXISTS ? (
				tenant_id       TEXT COLLATE "C" NOT NULL,
				id              TEXT COLLATE "C" NOT NULL,
				user_id         TEXT COLLATE "C" NOT NULL,
				kind            VARCHAR(20) NOT NULL,
				memory_type     VARCHAR(40),
				conversation_id TEXT,
				at              TIMESTAMPTZ NOT NULL,
				embedding       vector(` + strconv.Itoa(ix.opts.Dimension) + `) NOT NULL,
				PRIMARY KEY (tenant_id, id))`, []any{t}},
			// pgvector stores vectors EXTERNAL: over about 500 dimensions they go to the
			// TOAST table, and every exact distance and every HNSW re-check pays a
			// second lookup. MAIN keeps them in the row whenever the row fits a page.
			{"ALTER TABLE ? ALTER COLUMN embedding SET STORAGE MAIN", []any{t}},
			{"CREATE INDEX IF NOT EXISTS ? ON ? (tenant_id, user_id, kind, at)", []any{bun.Ident(ix.table + "_scope_idx"), t}},
			{"CREATE INDEX IF NOT EXISTS ? ON ? USING hnsw (embedding vector_cosine_ops) WITH (m = ?, ef_construction = ?)",
				[]any{bun.Ident(ix.table + "_hnsw_idx"), t, ix.opts.HNSWM, ix.opts.EfConstruction}},
			{"INSERT INTO vector_tables (table_name, model, dim) VALUES (?, ?, ?) ON CONFLICT (table_name) DO NOTHING",
				[]any{ix.table, ix.opts.Model, ix.opts.Dimension}},
		}
		for _, s := range stmts {
			if _, err := tx.NewRaw(s.q, s.args...).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	}))
}

// Upsert validates the batch, then writes it in one INSERT … ON CONFLICT. Of
// several records with one id the last wins.
func (ix *Index) Upsert(ctx context.Context, records []ports.VectorRecord) error {
	rows, err := ix.prepare(records)
	if err != nil || len(rows) == 0 {
		return err
	}
	var b strings.Builder
	args := make([]any, 0, 8*len(rows)+1)
	b.WriteString("INSERT INTO ? (tenant_id, id, user_id, kind, memory_type, conversation_id, at, embedding) VALUES ")
	args = append(args, bun.Ident(ix.table))
	for i, r := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?::vector)")
		args = append(args, r.Tenant, r.ID, r.User, string(r.Kind), nullable(r.MemoryType), nullable(r.ConversationID),
			r.At, pgv.NewVector(r.Vector).String())
	}
	b.WriteString(` ON CONFLICT (tenant_id, id) DO UPDATE SET user_id = EXCLUDED.user_id, kind = EXCLUDED.kind,
		memory_type = EXCLUDED.memory_type, conversation_id = EXCLUDED.conversation_id, at = EXCLUDED.at,
		embedding = EXCLUDED.embedding`)
	if _, err := ix.db.NewRaw(b.String(), args...).Exec(ctx); err != nil {
		return wrap("upsert", err)
	}
	ix.forgetCounts(rows)
	return nil
}

// Delete removes the tenant's vectors with these ids.
func (ix *Index) Delete(ctx context.Context, tenant string, ids []string) error {
	if tenant == "" {
		return invalid.Field("tenant", "must not be empty: deletes are confined to one tenant")
	}
	if len(ids) == 0 {
		return nil
	}
	_, err := ix.db.NewRaw("DELETE FROM ? WHERE tenant_id = ? AND id IN (?)", bun.Ident(ix.table), tenant, bun.List(ids)).Exec(ctx)
	return wrap("delete", err)
}

// Search ranks the user's vectors that pass every filter of q by cosine
// similarity, exactly or through HNSW as the package doc says.
func (ix *Index) Search(ctx context.Context, q ports.VectorQuery) ([]ports.VectorHit, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	if _, err := vector.Check("vector", q.Vector, ix.opts.Dimension); err != nil {
		return nil, err
	}
	exact := ix.opts.ExactThreshold < 0
	if !exact {
		n, err := ix.userCount(ctx, q.Tenant, q.User)
		if err != nil {
			return nil, err
		}
		exact = n <= ix.opts.ExactThreshold
	}
	query, args := ix.searchSQL(q, exact)
	var rows []hitRow
	if exact {
		if err := ix.db.NewRaw(query, args...).Scan(ctx, &rows); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, wrap("search", err)
		}
		return toHits(rows), nil
	}
	err := ix.db.RunInTx(ctx, &sql.TxOptions{ReadOnly: true}, func(ctx context.Context, tx bun.Tx) error {
		if err := ix.hnswSettings(ctx, tx, q.Limit); err != nil {
			return err
		}
		return tx.NewRaw(query, args...).Scan(ctx, &rows)
	})
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, wrap("search", err)
	}
	return toHits(rows), nil
}

// searchSQL is the ranking query of q on the exact or the HNSW path.
func (ix *Index) searchSQL(q ports.VectorQuery, exact bool) (string, []any) {
	vec := pgv.NewVector(q.Vector).String()
	where, filterArgs := ix.filters(q)
	args := append([]any{vec, bun.Ident(ix.table)}, filterArgs...)
	if exact {
		// MATERIALIZED keeps the planner off the HNSW index: every row of the user
		// that passes the filters is scored.
		return `WITH c AS MATERIALIZED (
				SELECT id, kind, embedding <=> ?::vector AS d FROM ? WHERE ` + where + `)
			SELECT id, kind, d FROM c ORDER BY d, id LIMIT ?`, append(args, q.Limit)
	}
	// relaxed_order may return hits slightly out of order: sort them again.
	return `WITH c AS MATERIALIZED (
			SELECT id, kind, embedding <=> ?::vector AS d FROM ? WHERE ` + where + `
			ORDER BY embedding <=> ?::vector LIMIT ?)
		SELECT id, kind, d FROM c ORDER BY d, id`, append(args, vec, q.Limit)
}

// hnswSettings sets the HNSW search parameters for the transaction.
func (ix *Index) hnswSettings(ctx context.Context, tx bun.Tx, limit int) error {
	// The planner still chooses: when the user is a large part of the table it may
	// prefer a sequential scan and a sort, and when the user's rows are few, the
	// B-tree; both are exact, and measured no slower there than the graph.
	settings := []string{fmt.Sprintf("SET LOCAL hnsw.ef_search = %d", max(ix.opts.EfSearch, min(limit, 1000)))}
	if ix.iterative {
		settings = append(settings, "SET LOCAL hnsw.iterative_scan = relaxed_order",
			fmt.Sprintf("SET LOCAL hnsw.max_scan_tuples = %d", ix.opts.MaxScanTuples))
	}
	for _, s := range settings {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

type hitRow struct {
	ID   string  `bun:"id"`
	Kind string  `bun:"kind"`
	D    float64 `bun:"d"`
}

func toHits(rows []hitRow) []ports.VectorHit {
	hits := make([]ports.VectorHit, len(rows))
	for i, r := range rows {
		hits[i] = ports.VectorHit{ID: r.ID, Kind: memory.Kind(r.Kind), Score: 1 - r.D}
	}
	return hits
}

// filters is the WHERE clause of q (without the vector) and its arguments.
func (ix *Index) filters(q ports.VectorQuery) (string, []any) {
	clauses := []string{"tenant_id = ?", "user_id = ?"}
	args := []any{q.Tenant, q.User}
	if len(q.Kinds) > 0 {
		kinds := make([]string, len(q.Kinds))
		for i, k := range q.Kinds {
			kinds[i] = string(k)
		}
		clauses = append(clauses, "kind IN (?)")
		args = append(args, bun.List(kinds))
	}
	if len(q.MemoryTypes) > 0 {
		clauses = append(clauses, "memory_type IN (?)")
		args = append(args, bun.List(q.MemoryTypes))
	}
	if q.ConversationID != "" {
		clauses = append(clauses, "conversation_id = ?")
		args = append(args, q.ConversationID)
	}
	if !q.Since.IsZero() {
		clauses = append(clauses, "at >= ?")
		args = append(args, millis(q.Since))
	}
	if !q.Until.IsZero() {
		clauses = append(clauses, "at < ?")
		args = append(args, millis(q.Until))
	}
	return strings.Join(clauses, " AND "), args
}

// userCount is how many vectors the user has, counted up to just past the exact
// threshold (an index-only range scan) and remembered for CountTTL.
func (ix *Index) userCount(ctx context.Context, tenant, user string) (int, error) {
	key := [2]string{tenant, user}
	ix.mu.Lock()
	c, ok := ix.counts[key]
	ix.mu.Unlock()
	if ok && time.Since(c.at) < ix.opts.CountTTL {
		return c.n, nil
	}
	var n int
	err := ix.db.NewRaw("SELECT count(*) FROM (SELECT 1 FROM ? WHERE tenant_id = ? AND user_id = ? LIMIT ?) AS s",
		bun.Ident(ix.table), tenant, user, ix.opts.ExactThreshold+1).Scan(ctx, &n)
	if err != nil {
		return 0, wrap("count the user's vectors", err)
	}
	ix.mu.Lock()
	if len(ix.counts) > 100000 {
		clear(ix.counts) // bounded memory; counts are cheap to take again
	}
	ix.counts[key] = userCount{n: n, at: time.Now()}
	ix.mu.Unlock()
	return n, nil
}

// forgetCounts drops the cached counts of users that got vectors, so a user who
// grows past the threshold is searched the right way soon; a user who shrinks is
// at worst searched through HNSW until the count expires.
func (ix *Index) forgetCounts(rows []ports.VectorRecord) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for _, r := range rows {
		delete(ix.counts, [2]string{r.Tenant, r.User})
	}
}

// prepare validates the batch (refused whole) and keeps the last copy of each id.
func (ix *Index) prepare(records []ports.VectorRecord) ([]ports.VectorRecord, error) {
	var errs []error
	last := make(map[[2]string]int, len(records))
	for i, r := range records {
		field := fmt.Sprintf("records[%d]", i)
		if err := r.Validate(field); err != nil {
			errs = append(errs, err)
			continue
		}
		if _, err := vector.Check(field+".vector", r.Vector, ix.opts.Dimension); err != nil {
			errs = append(errs, err)
			continue
		}
		last[[2]string{r.Tenant, r.ID}] = i
	}
	if err := invalid.Join(errs...); err != nil {
		return nil, err
	}
	out := make([]ports.VectorRecord, 0, len(last))
	for i, r := range records {
		if last[[2]string{r.Tenant, r.ID}] == i {
			r.At = millis(r.At)
			out = append(out, r)
		}
	}
	return out, nil
}

// millis is the precision the port promises for times.
func millis(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// atLeast compares an extension version "major.minor.patch".
func atLeast(version string, major, minor int) bool {
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || (ma == major && mi >= minor)
}

// wrap turns a database error into a ports error: the database not answering (or
// the caller's deadline) is ErrUnavailable; anything else (a bug, a schema
// problem) keeps its message but not its driver type.
func wrap(op string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("pgvector: %s: %w: %w", op, ports.ErrUnavailable, contextErr(err))
	case unavailable(err):
		return fmt.Errorf("pgvector: %s: %w: %v", op, ports.ErrUnavailable, err)
	}
	return fmt.Errorf("pgvector: %s: %s", op, err.Error())
}

func contextErr(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return context.DeadlineExceeded
	}
	return context.Canceled
}

// unavailable reports connection failures and the server refusing work
// (SQLSTATE classes 08 connection, 53 resources, 57 operator intervention).
func unavailable(err error) bool {
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		code := pgErr.Field('C')
		return strings.HasPrefix(code, "08") || strings.HasPrefix(code, "53") || strings.HasPrefix(code, "57")
	}
	var netErr net.Error
	if errors.As(err, &netErr) || errors.Is(err, sql.ErrConnDone) {
		return true
	}
	msg := err.Error()
	for _, s := range []string{"sql: database is closed", "connection refused", "broken pipe", "connection reset", "EOF"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

package sqlstore

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"engram/domain/memory"
	"engram/ports"
)

// LexicalDocs keeps analysed documents in lexical_docs and each user's generation
// in lexical_users. The SQL is the same on both dialects (INSERT … ON CONFLICT …
// RETURNING exists in SQLite since 3.35), and no full-text feature of either
// database is used: scoring happens in Go (app/retrieval), identically.
type LexicalDocs struct {
	db *DB
}

var (
	_ ports.LexicalDocs = (*LexicalDocs)(nil)
	_ ports.LexicalFeed = (*LexicalDocs)(nil)
)

// NewLexicalDocs serves ports.LexicalDocs and ports.LexicalFeed from db.
func NewLexicalDocs(db *DB) *LexicalDocs { return &LexicalDocs{db: db} }

// lexicalBatch bounds the rows of one INSERT (SQLite's variable limit is 32766;
// 13 columns × 1000 rows stays under it).
const lexicalBatch = 1000

// Put advances the generation of every user touched and upserts the
// documents with it, in one transaction.
func (x *LexicalDocs) Put(ctx context.Context, docs []ports.LexicalDoc) error {
	if len(docs) == 0 {
		return nil
	}
	for _, d := range docs {
		if d.Tenant == "" || d.User == "" || d.ID == "" || (d.Kind != memory.KindMemory && d.Kind != memory.KindMessage) {
			return fmt.Errorf("sqlstore: put lexical docs: a document needs a tenant, a user, a kind and an id")
		}
	}
	return x.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error { return x.db.putLexicalDocs(ctx, tx, docs) })
}

func (db *DB) putLexicalDocs(ctx context.Context, tx bun.Tx, docs []ports.LexicalDoc) error {
	docs, err := withoutErasing(ctx, tx, docs)
	if err != nil || len(docs) == 0 {
		return err
	}
	// Generations are advanced in one order (tenant, user), so two writers of
	// several users' documents never wait for each other's rows in a cycle.
	gens := map[memory.Scope]int64{}
	for _, d := range docs {
		gens[memory.Scope{Tenant: d.Tenant, User: d.User}] = 0
	}
	scopes := slices.SortedFunc(maps.Keys(gens), func(a, b memory.Scope) int {
		return cmp.Or(cmp.Compare(a.Tenant, b.Tenant), cmp.Compare(a.User, b.User))
	})
	for _, sc := range scopes {
		gen, err := bumpGeneration(ctx, tx, sc)
		if err != nil {
			return err
		}
		gens[sc] = gen
	}
	// One row per document: PostgreSQL refuses an upsert that touches a row twice,
	// and the last copy of a document in the batch is the one that counts.
	type docKey struct{ tenant, user, kind, id string }
	at := make(map[docKey]int, len(docs))
	rows := make([]lexicalDocRow, 0, len(docs))
	for _, d := range docs {
		row := toLexicalDocRow(d, gens[memory.Scope{Tenant: d.Tenant, User: d.User}])
		k := docKey{d.Tenant, d.User, string(d.Kind), d.ID}
		if i, dup := at[k]; dup {
			rows[i] = row
			continue
		}
		at[k] = len(rows)
		rows = append(rows, row)
	}
	for start := 0; start < len(rows); start += lexicalBatch {
		chunk := rows[start:min(start+lexicalBatch, len(rows))]
		_, err := tx.NewInsert().Model(&chunk).
			On("CONFLICT (tenant_id, user_id, kind, doc_id) DO UPDATE").
			Set("conversation_id = EXCLUDED.conversation_id").
			Set("memory_type = EXCLUDED.memory_type").
			Set("at = EXCLUDED.at").
			Set("expires_at = EXCLUDED.expires_at").
			Set("speaker = EXCLUDED.speaker").
			Set("terms = EXCLUDED.terms").
			Set("version = EXCLUDED.version").
			Set("gen = EXCLUDED.gen").
			Set("deleted = EXCLUDED.deleted").
			Exec(ctx)
		if err != nil {
			return wrapErr("put lexical docs", err)
		}
	}
	return nil
}

// withoutErasing drops the documents of users being erased: the lexical passes
// read the truth outside this transaction, and must not write back what the
// erasure is removing. (The open erasures are few: one read of the partial index of
// open jobs.)
func withoutErasing(ctx context.Context, tx bun.Tx, docs []ports.LexicalDoc) ([]ports.LexicalDoc, error) {
	var open []struct {
		TenantID string `bun:"tenant_id"`
		UserID   string `bun:"user_id"`
	}
	err := tx.NewRaw(`SELECT j.tenant_id, j.user_id FROM jobs AS j WHERE `+openErasure).Scan(ctx, &open)
	if err != nil && classify(err) != classNotFound {
		return nil, wrapErr("check erasures", err)
	}
	if len(open) == 0 {
		return docs, nil
	}
	erasing := make(map[memory.Scope]bool, len(open))
	for _, o := range open {
		erasing[memory.Scope{Tenant: o.TenantID, User: o.UserID}] = true
	}
	kept := docs[:0:0]
	for _, d := range docs {
		if !erasing[memory.Scope{Tenant: d.Tenant, User: d.User}] {
			kept = append(kept, d)
		}
	}
	return kept, nil
}

// bumpGeneration advances the user's generation and returns it. On PostgreSQL the
// row lock it takes orders the user's writers, so generations commit in order. A
// user's first generation is 1, or, for a user erased before, one above the
// generation the erased documents had reached (lexical_horizons), with the horizon
// at that first generation: a reader still holding the erased ones reloads.
func bumpGeneration(ctx context.Context, tx bun.Tx, sc memory.Scope) (int64, error) {
	var gen int64
	hash := sc.Fingerprint()
	err := tx.NewRaw(`INSERT INTO lexical_users (tenant_id, user_id, gen, horizon)
		SELECT ?, ?, COALESCE(max(h.gen), 0) + 1, COALESCE(max(h.gen) + 1, 0)
			FROM lexical_horizons AS h WHERE h.tenant_id = ? AND h.user_hash = ?
		ON CONFLICT (tenant_id, user_id) DO UPDATE SET gen = lexical_users.gen + 1
		RETURNING gen`, sc.Tenant, sc.User, sc.Tenant, hash).Scan(ctx, &gen)
	if err != nil {
		return 0, wrapErr("advance lexical generation", err)
	}
	return gen, nil
}

// Delete turns the documents into tombstones of a new generation.
func (x *LexicalDocs) Delete(ctx context.Context, scope memory.Scope, refs []ports.LexicalRef) error {
	if len(refs) == 0 {
		return nil
	}
	return x.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error { return x.db.deleteLexicalDocs(ctx, tx, scope, refs) })
}

// deleteLexicalDocs tombstones the documents at a new generation and compacts the
// user's tombstones older than the window (compactTombstones).
func (db *DB) deleteLexicalDocs(ctx context.Context, tx bun.Tx, scope memory.Scope, refs []ports.LexicalRef) error {
	byKind := map[memory.Kind][]string{}
	for _, r := range refs {
		byKind[r.Kind] = append(byKind[r.Kind], r.ID)
	}
	gen, err := bumpGeneration(ctx, tx, scope)
	if err != nil {
		return err
	}
	for kind, ids := range byKind {
		for start := 0; start < len(ids); start += lexicalBatch {
			_, err := tx.NewUpdate().Model((*lexicalDocRow)(nil)).
				Set("deleted = ?", true).
				Set("terms = ''").
				Set("gen = ?", gen).
				Where("tenant_id = ?", scope.Tenant).
				Where("user_id = ?", scope.User).
				Where("kind = ?", string(kind)).
				Where("doc_id IN (?)", bun.List(ids[start:min(start+lexicalBatch, len(ids))])).
				Where("deleted = ?", false).
				Exec(ctx)
			if err != nil {
				return wrapErr("delete lexical docs", err)
			}
		}
	}
	return db.compactTombstones(ctx, tx, scope, gen)
}

// DefaultLexicalTombstoneWindow is how many of a user's latest generations keep
// their deletions as tombstones. A reader more generations behind reloads the user
// instead of catching up, which costs about what a new reader's load does.
const DefaultLexicalTombstoneWindow = 1000

// SetLexicalTombstoneWindow changes DefaultLexicalTombstoneWindow (tests). Call it
// before the database is used.
func (db *DB) SetLexicalTombstoneWindow(generations int64) { db.lexicalWindow = max(generations, 1) }

func (db *DB) tombstoneWindow() int64 {
	if db.lexicalWindow > 0 {
		return db.lexicalWindow
	}
	return DefaultLexicalTombstoneWindow
}

// compactTombstones deletes the user's tombstones of generations at or below
// gen − window (through the partial index of tombstones: usually none) and raises
// the user's horizon to that generation, so a reader behind it reloads.
func (db *DB) compactTombstones(ctx context.Context, tx bun.Tx, scope memory.Scope, gen int64) error {
	horizon := gen - db.tombstoneWindow()
	if horizon <= 0 {
		return nil
	}
	res, err := tx.NewRaw(`DELETE FROM lexical_docs WHERE tenant_id = ? AND user_id = ? AND deleted = TRUE AND gen <= ?`,
		scope.Tenant, scope.User, horizon).Exec(ctx)
	if err != nil {
		return wrapErr("compact lexical tombstones", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	_, err = tx.NewRaw(`UPDATE lexical_users SET horizon = ? WHERE tenant_id = ? AND user_id = ? AND horizon < ?`,
		horizon, scope.Tenant, scope.User, horizon).Exec(ctx)
	return wrapErr("raise lexical horizon", err)
}

// lexicalHook keeps a memory's lexical document in the transaction that changes
// the memory: the document commits with the change or not at all, and a save
// costs one commit, not two (see MemoryStore.IndexLexically).
type lexicalHook struct {
	db       *DB
	document func(memory.Memory) (ports.LexicalDoc, bool)
}

// IndexLexically makes every change Update commits also write the memory's
// document in lexical_docs, in the same transaction: document returns it and
// whether the memory belongs in the index (false: its document is removed). Call
// it once, before the store is used. Without it, only the indexer's repair pass
// writes the documents, later.
func (s *MemoryStore) IndexLexically(document func(memory.Memory) (ports.LexicalDoc, bool)) {
	s.lexical = &lexicalHook{db: s.db, document: document}
}

func (h *lexicalHook) memoryWritten(ctx context.Context, tx bun.Tx, m memory.Memory) error {
	doc, keep := h.document(m)
	if keep {
		return h.db.putLexicalDocs(ctx, tx, []ports.LexicalDoc{doc})
	}
	return h.db.deleteLexicalDocs(ctx, tx, m.Scope(), []ports.LexicalRef{{Kind: memory.KindMemory, ID: m.ID()}})
}

// Generation reads the user's generation.
func (x *LexicalDocs) Generation(ctx context.Context, scope memory.Scope) (int64, error) {
	var gens []int64
	err := x.db.bun.NewSelect().Table("lexical_users").Column("gen").
		Where("tenant_id = ?", scope.Tenant).
		Where("user_id = ?", scope.User).
		Scan(ctx, &gens)
	if err != nil {
		return 0, wrapErr("lexical generation", err)
	}
	if len(gens) == 0 {
		return 0, nil
	}
	return gens[0], nil
}

// ChangesSince reads the rows of a later generation; tombstones become
// deletions (none when since is 0: a new reader has nothing to forget). A reader
// behind the user's horizon, or ahead of the user's generation (the user was erased
// since), gets every live document and a Reset.
func (x *LexicalDocs) ChangesSince(ctx context.Context, scope memory.Scope, since int64) (ports.LexicalChanges, error) {
	reset, current := false, int64(0)
	if since > 0 {
		var state []struct {
			Gen     int64 `bun:"gen"`
			Horizon int64 `bun:"horizon"`
		}
		err := x.db.bun.NewSelect().Table("lexical_users").Column("gen", "horizon").
			Where("tenant_id = ?", scope.Tenant).
			Where("user_id = ?", scope.User).
			Scan(ctx, &state)
		if err != nil {
			return ports.LexicalChanges{}, wrapErr("lexical generation", err)
		}
		if len(state) == 0 || since < state[0].Horizon || since > state[0].Gen {
			reset, since = true, 0
			if len(state) == 1 {
				current = state[0].Gen
			}
		}
	}
	var rows []lexicalDocRow
	q := x.db.bun.NewSelect().Model(&rows).
		Where("ld.tenant_id = ?", scope.Tenant).
		Where("ld.user_id = ?", scope.User).
		Where("ld.gen > ?", since)
	if since == 0 {
		q = q.Where("ld.deleted = ?", false)
	}
	if err := q.Scan(ctx); err != nil {
		return ports.LexicalChanges{}, wrapErr("lexical changes", err)
	}
	out := ports.LexicalChanges{Generation: max(since, current), Reset: reset}
	for i := range rows {
		r := &rows[i]
		out.Generation = max(out.Generation, r.Gen)
		if r.Deleted {
			out.Deleted = append(out.Deleted, ports.LexicalRef{Kind: memory.Kind(r.Kind), ID: r.DocID})
			continue
		}
		out.Docs = append(out.Docs, r.toDoc())
	}
	return out, nil
}

// Versions reads the indexed versions of memories.
func (x *LexicalDocs) Versions(ctx context.Context, scope memory.Scope, memoryIDs []string) (map[string]int64, error) {
	out := make(map[string]int64, len(memoryIDs))
	for start := 0; start < len(memoryIDs); start += lexicalBatch {
		var rows []lexicalDocRow
		err := x.db.bun.NewSelect().Model(&rows).Column("doc_id", "version").
			Where("ld.tenant_id = ?", scope.Tenant).
			Where("ld.user_id = ?", scope.User).
			Where("ld.kind = ?", string(memory.KindMemory)).
			Where("ld.doc_id IN (?)", bun.List(memoryIDs[start:min(start+lexicalBatch, len(memoryIDs))])).
			Where("ld.deleted = ?", false).
			Scan(ctx)
		if err != nil {
			return nil, wrapErr("lexical versions", err)
		}
		for _, r := range rows {
			out[r.DocID] = r.Version
		}
	}
	return out, nil
}

// Users reads the users with the highest generations.
func (x *LexicalDocs) Users(ctx context.Context, limit int) ([]memory.Scope, error) {
	if limit <= 0 {
		return nil, nil
	}
	var rows []struct {
		TenantID string `bun:"tenant_id"`
		UserID   string `bun:"user_id"`
	}
	err := x.db.bun.NewSelect().Table("lexical_users").Column("tenant_id", "user_id").
		OrderExpr("gen DESC, tenant_id, user_id").Limit(int64(limit)).Scan(ctx, &rows)
	if err != nil {
		return nil, wrapErr("lexical users", err)
	}
	out := make([]memory.Scope, len(rows))
	for i, r := range rows {
		out[i] = memory.Scope{Tenant: r.TenantID, User: r.UserID}
	}
	return out, nil
}

// lexicalDocRow is one row of lexical_docs.
type lexicalDocRow struct {
	bun.BaseModel `bun:"table:lexical_docs,alias:ld"`

	TenantID       string    `bun:"tenant_id,pk"`
	UserID         string    `bun:"user_id,pk"`
	Kind           string    `bun:"kind,pk"`
	DocID          string    `bun:"doc_id,pk"`
	ConversationID string    `bun:"conversation_id,nullzero"`
	MemoryType     string    `bun:"memory_type,nullzero"`
	At             time.Time `bun:"at"`
	ExpiresAt      time.Time `bun:"expires_at,nullzero"`
	Speaker        string    `bun:"speaker,nullzero"`
	Terms          string    `bun:"terms"`
	Version        int64     `bun:"version"`
	Gen            int64     `bun:"gen"`
	Deleted        bool      `bun:"deleted"`
}

func toLexicalDocRow(d ports.LexicalDoc, gen int64) lexicalDocRow {
	return lexicalDocRow{
		TenantID:       d.Tenant,
		UserID:         d.User,
		Kind:           string(d.Kind),
		DocID:          d.ID,
		ConversationID: d.ConversationID,
		MemoryType:     d.MemoryType,
		At:             dbTime(d.At),
		ExpiresAt:      dbTime(d.ExpiresAt),
		Speaker:        d.Speaker,
		Terms:          strings.Join(d.Terms, " "),
		Version:        d.Version,
		Gen:            gen,
	}
}

func (r *lexicalDocRow) toDoc() ports.LexicalDoc {
	var terms []string
	if r.Terms != "" {
		terms = strings.Split(r.Terms, " ")
	}
	return ports.LexicalDoc{
		Tenant:         r.TenantID,
		User:           r.UserID,
		Kind:           memory.Kind(r.Kind),
		ID:             r.DocID,
		ConversationID: r.ConversationID,
		MemoryType:     r.MemoryType,
		At:             dbTime(r.At),
		ExpiresAt:      dbTime(r.ExpiresAt),
		Speaker:        r.Speaker,
		Terms:          slices.Clip(terms),
		Version:        r.Version,
	}
}

// PurgedLexicalDocs is the kind LexicalIndex.PurgeUser counts.
const PurgedLexicalDocs = "lexical_docs"

var _ ports.UserPurger = (*LexicalDocs)(nil)

// PurgeUser deletes every document of the user, tombstones included, batch by
// batch, then the user's generation row; the generation reached is kept under the
// user's fingerprint (lexical_horizons), so that if the user is written again its
// generations start above it and readers still holding the erased documents
// reload (ChangesSince).
func (x *LexicalDocs) PurgeUser(ctx context.Context, scope memory.Scope) (map[string]int64, error) {
	removed := map[string]int64{PurgedLexicalDocs: 0}
	for {
		var n int64
		err := x.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			res, err := tx.NewRaw(`DELETE FROM lexical_docs WHERE (tenant_id, user_id, kind, doc_id) IN (
					SELECT tenant_id, user_id, kind, doc_id FROM lexical_docs WHERE tenant_id = ? AND user_id = ? LIMIT ?)`,
				scope.Tenant, scope.User, purgeBatch).Exec(ctx)
			if err != nil {
				return wrapErr("purge lexical docs", err)
			}
			n, _ = res.RowsAffected()
			return nil
		})
		if err != nil {
			return removed, err
		}
		removed[PurgedLexicalDocs] += n
		if n < purgeBatch {
			break
		}
	}
	var tail int64
	err := x.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		tail = 0
		lock := ""
		if x.db.dialect == DialectPostgres {
			lock = " FOR UPDATE"
		}
		var gens []int64
		err := tx.NewRaw(`SELECT gen FROM lexical_users WHERE tenant_id = ? AND user_id = ?`+lock, scope.Tenant, scope.User).Scan(ctx, &gens)
		if err != nil && classify(err) != classNotFound {
			return wrapErr("purge lexical user", err)
		}
		if len(gens) == 0 {
			return nil
		}
		_, err = tx.NewRaw(`INSERT INTO lexical_horizons (tenant_id, user_hash, gen) VALUES (?, ?, ?)
			ON CONFLICT (tenant_id, user_hash) DO UPDATE SET gen = CASE WHEN EXCLUDED.gen > lexical_horizons.gen
				THEN EXCLUDED.gen ELSE lexical_horizons.gen END`, scope.Tenant, scope.Fingerprint(), gens[0]).Exec(ctx)
		if err != nil {
			return wrapErr("keep lexical horizon", err)
		}
		// A document put after the batches above (a lexical pass) goes with the row.
		res, err := tx.NewRaw(`DELETE FROM lexical_docs WHERE tenant_id = ? AND user_id = ?`, scope.Tenant, scope.User).Exec(ctx)
		if err != nil {
			return wrapErr("purge lexical docs", err)
		}
		tail, _ = res.RowsAffected()
		_, err = tx.NewRaw(`DELETE FROM lexical_users WHERE tenant_id = ? AND user_id = ?`, scope.Tenant, scope.User).Exec(ctx)
		return wrapErr("purge lexical user", err)
	})
	if err == nil {
		removed[PurgedLexicalDocs] += tail
	}
	return removed, err
}

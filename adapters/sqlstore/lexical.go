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

// LexicalIndex keeps analysed documents in lexical_docs and each user's generation
// in lexical_users. The SQL is the same on both dialects (INSERT … ON CONFLICT …
// RETURNING exists in SQLite since 3.35), and no full-text feature of either
// database is used: scoring happens in Go (app/retrieval), identically.
type LexicalIndex struct {
	db *DB
}

var _ ports.LexicalIndex = (*LexicalIndex)(nil)

// NewLexicalIndex serves ports.LexicalIndex from db.
func NewLexicalIndex(db *DB) *LexicalIndex { return &LexicalIndex{db: db} }

// lexicalBatch bounds the rows of one INSERT (SQLite's variable limit is 32766;
// 13 columns × 1000 rows stays under it).
const lexicalBatch = 1000

// PutLexicalDocs advances the generation of every user touched and upserts the
// documents with it, in one transaction.
func (x *LexicalIndex) PutLexicalDocs(ctx context.Context, docs []ports.LexicalDoc) error {
	if len(docs) == 0 {
		return nil
	}
	for _, d := range docs {
		if d.Tenant == "" || d.User == "" || d.ID == "" || (d.Kind != memory.KindMemory && d.Kind != memory.KindMessage) {
			return fmt.Errorf("sqlstore: put lexical docs: a document needs a tenant, a user, a kind and an id")
		}
	}
	return x.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error { return putLexicalDocs(ctx, tx, docs) })
}

func putLexicalDocs(ctx context.Context, tx bun.Tx, docs []ports.LexicalDoc) error {
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

// bumpGeneration advances the user's generation and returns it. On PostgreSQL the
// row lock it takes orders the user's writers, so generations commit in order.
func bumpGeneration(ctx context.Context, tx bun.Tx, sc memory.Scope) (int64, error) {
	var gen int64
	err := tx.NewRaw(`INSERT INTO lexical_users (tenant_id, user_id, gen) VALUES (?, ?, 1)
		ON CONFLICT (tenant_id, user_id) DO UPDATE SET gen = lexical_users.gen + 1
		RETURNING gen`, sc.Tenant, sc.User).Scan(ctx, &gen)
	if err != nil {
		return 0, wrapErr("advance lexical generation", err)
	}
	return gen, nil
}

// DeleteLexicalDocs turns the documents into tombstones of a new generation.
func (x *LexicalIndex) DeleteLexicalDocs(ctx context.Context, scope memory.Scope, refs []ports.LexicalRef) error {
	if len(refs) == 0 {
		return nil
	}
	return x.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error { return deleteLexicalDocs(ctx, tx, scope, refs) })
}

func deleteLexicalDocs(ctx context.Context, tx bun.Tx, scope memory.Scope, refs []ports.LexicalRef) error {
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
				Where("doc_id IN (?)", bun.In(ids[start:min(start+lexicalBatch, len(ids))])).
				Where("deleted = ?", false).
				Exec(ctx)
			if err != nil {
				return wrapErr("delete lexical docs", err)
			}
		}
	}
	return nil
}

// ClaimLexicalCursor takes or renews the cursor's lease in one upsert whose update
// only applies when the lease is free, lapsed or already the holder's.
func (x *LexicalIndex) ClaimLexicalCursor(ctx context.Context, name, holder string, now time.Time, lease time.Duration) (string, bool, error) {
	var pos []string
	err := x.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		pos = pos[:0]
		return tx.NewRaw(`INSERT INTO lexical_cursors (name, position, updated_at, holder, lease_until) VALUES (?, '', ?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, lease_until = EXCLUDED.lease_until
			WHERE lexical_cursors.holder IS NULL OR lexical_cursors.holder = EXCLUDED.holder
				OR lexical_cursors.lease_until IS NULL OR lexical_cursors.lease_until <= ?
			RETURNING position`, name, dbTime(now), holder, dbTime(now.Add(lease)), dbTime(now)).Scan(ctx, &pos)
	})
	if err != nil && classify(err) != classNotFound {
		return "", false, wrapErr("claim lexical cursor", err)
	}
	if len(pos) == 0 {
		return "", false, nil
	}
	return pos[0], true, nil
}

// ReleaseLexicalCursor ends holder's lease, keeping the position.
func (x *LexicalIndex) ReleaseLexicalCursor(ctx context.Context, name, holder string) error {
	return x.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewRaw(`UPDATE lexical_cursors SET holder = NULL, lease_until = NULL WHERE name = ? AND holder = ?`,
			name, holder).Exec(ctx)
		return wrapErr("release lexical cursor", err)
	})
}

// lexicalHook keeps a memory's lexical document in the transaction that changes
// the memory: the document commits with the change or not at all, and a save
// costs one commit, not two (see MemoryStore.IndexLexically).
type lexicalHook struct {
	document func(memory.Memory) (ports.LexicalDoc, bool)
}

// IndexLexically makes every change Update commits also write the memory's
// document in lexical_docs, in the same transaction: document returns it and
// whether the memory belongs in the index (false: its document is removed). Call
// it once, before the store is used. Without it, a decorator must keep the index
// (app/indexing.IndexingMemoryStore), at the price of a second transaction.
func (s *MemoryStore) IndexLexically(document func(memory.Memory) (ports.LexicalDoc, bool)) {
	s.lexical = &lexicalHook{document: document}
}

func (h *lexicalHook) memoryWritten(ctx context.Context, tx bun.Tx, m memory.Memory) error {
	doc, keep := h.document(m)
	if keep {
		return putLexicalDocs(ctx, tx, []ports.LexicalDoc{doc})
	}
	return deleteLexicalDocs(ctx, tx, m.Scope(), []ports.LexicalRef{{Kind: memory.KindMemory, ID: m.ID()}})
}

// LexicalGeneration reads the user's generation.
func (x *LexicalIndex) LexicalGeneration(ctx context.Context, scope memory.Scope) (int64, error) {
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

// LexicalChangesSince reads the rows of a later generation; tombstones become
// deletions (none when since is 0: a new reader has nothing to forget).
func (x *LexicalIndex) LexicalChangesSince(ctx context.Context, scope memory.Scope, since int64) (ports.LexicalChanges, error) {
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
	out := ports.LexicalChanges{Generation: since}
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

// LexicalVersions reads the indexed versions of memories.
func (x *LexicalIndex) LexicalVersions(ctx context.Context, scope memory.Scope, memoryIDs []string) (map[string]int64, error) {
	out := make(map[string]int64, len(memoryIDs))
	for start := 0; start < len(memoryIDs); start += lexicalBatch {
		var rows []lexicalDocRow
		err := x.db.bun.NewSelect().Model(&rows).Column("doc_id", "version").
			Where("ld.tenant_id = ?", scope.Tenant).
			Where("ld.user_id = ?", scope.User).
			Where("ld.kind = ?", string(memory.KindMemory)).
			Where("ld.doc_id IN (?)", bun.In(memoryIDs[start:min(start+lexicalBatch, len(memoryIDs))])).
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

// LexicalUsers reads the users with the highest generations.
func (x *LexicalIndex) LexicalUsers(ctx context.Context, limit int) ([]memory.Scope, error) {
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

// LexicalCursor reads a named position.
func (x *LexicalIndex) LexicalCursor(ctx context.Context, name string) (string, error) {
	var pos []string
	err := x.db.bun.NewSelect().Table("lexical_cursors").Column("position").
		Where("name = ?", name).Scan(ctx, &pos)
	if err != nil {
		return "", wrapErr("lexical cursor", err)
	}
	if len(pos) == 0 {
		return "", nil
	}
	return pos[0], nil
}

// SetLexicalCursor stores a named position.
func (x *LexicalIndex) SetLexicalCursor(ctx context.Context, name, position string) error {
	return x.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewRaw(`INSERT INTO lexical_cursors (name, position, updated_at) VALUES (?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position, updated_at = EXCLUDED.updated_at`,
			name, position, dbTime(time.Now())).Exec(ctx)
		return wrapErr("set lexical cursor", err)
	})
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

package sqlstore

import (
	"context"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"engram/domain/memory"
	"engram/domain/vector"
	"engram/ports"
)

// LocalVectorStore keeps the embedded vector index's vectors of one embedding model
// and dimension in local_vectors, so the in-process index (adapters/localvec) is
// rebuilt at start without embedding anything again. It has the method set of
// localvec.Store.
type LocalVectorStore struct {
	db    *DB
	model string
	dim   int
}

// LoadBatchSize is how many vectors one LoadVectors page reads.
const LoadBatchSize = 2000

// NewLocalVectorStore serves the vectors of model (the embedder's Model()) and dim
// from db. Rows of other models stay in the table and are never read.
func NewLocalVectorStore(db *DB, model string, dim int) *LocalVectorStore {
	return &LocalVectorStore{db: db, model: model, dim: dim}
}

// SaveVectors inserts or replaces the records, keyed by tenant and id, in one
// transaction. Of several records with one id, the last is kept.
func (s *LocalVectorStore) SaveVectors(ctx context.Context, records []ports.VectorRecord) error {
	rows := s.toRows(records)
	if len(rows) == 0 {
		return nil
	}
	if s.db.dialect == DialectPostgres {
		return s.saveVectorsPostgres(ctx, rows)
	}
	args := make([][]any, len(rows))
	for i, r := range rows {
		args[i] = []any{r.Model, r.Dim, r.TenantID, r.ID, r.UserID, r.Kind, nullable(r.MemoryType),
			nullable(r.ConversationID), s.db.bindTime(r.At), r.Vector}
	}
	return s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := s.db.execEach(ctx, tx, "save vectors", `INSERT INTO local_vectors
				(model, dim, tenant_id, id, user_id, kind, memory_type, conversation_id, at, vector)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (model, dim, tenant_id, id) DO UPDATE SET user_id = EXCLUDED.user_id, kind = EXCLUDED.kind,
				memory_type = EXCLUDED.memory_type, conversation_id = EXCLUDED.conversation_id,
				at = EXCLUDED.at, vector = EXCLUDED.vector`, args)
		return err
	})
}

// saveVectorsPostgres writes the batch with one INSERT over arrays.
func (s *LocalVectorStore) saveVectorsPostgres(ctx context.Context, rows []localVectorRow) error {
	n := len(rows)
	cols := make([][]string, 8)
	for c := range cols {
		cols[c] = make([]string, n)
	}
	for i, r := range rows {
		cols[0][i], cols[1][i], cols[2][i], cols[3][i] = r.TenantID, r.ID, r.UserID, r.Kind
		cols[4][i], cols[5][i], cols[6][i] = r.MemoryType, r.ConversationID, pgTime(r.At)
		cols[7][i] = hex.EncodeToString(r.Vector)
	}
	return s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewRaw(`INSERT INTO local_vectors
				(model, dim, tenant_id, id, user_id, kind, memory_type, conversation_id, at, vector)
			SELECT ?, ?, v.tenant_id, v.id, v.user_id, v.kind, NULLIF(v.memory_type, ''), NULLIF(v.conversation_id, ''),
				v.at::timestamptz, decode(v.vector, 'hex')
			FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])
				AS v(tenant_id, id, user_id, kind, memory_type, conversation_id, at, vector)
			ON CONFLICT (model, dim, tenant_id, id) DO UPDATE SET user_id = EXCLUDED.user_id, kind = EXCLUDED.kind,
				memory_type = EXCLUDED.memory_type, conversation_id = EXCLUDED.conversation_id,
				at = EXCLUDED.at, vector = EXCLUDED.vector`,
			s.model, s.dim, pgdialect.Array(cols[0]), pgdialect.Array(cols[1]), pgdialect.Array(cols[2]),
			pgdialect.Array(cols[3]), pgdialect.Array(cols[4]), pgdialect.Array(cols[5]), pgdialect.Array(cols[6]),
			pgdialect.Array(cols[7])).Exec(ctx)
		return wrapErr("save vectors", err)
	})
}

// toRows converts records, keeping the last copy of each id: PostgreSQL refuses an
// upsert that touches one row twice.
func (s *LocalVectorStore) toRows(records []ports.VectorRecord) []localVectorRow {
	last := make(map[[2]string]int, len(records))
	for i, r := range records {
		last[[2]string{r.Tenant, r.ID}] = i
	}
	rows := make([]localVectorRow, 0, len(last))
	for i, r := range records {
		if last[[2]string{r.Tenant, r.ID}] != i {
			continue
		}
		rows = append(rows, localVectorRow{
			Model: s.model, Dim: s.dim, TenantID: r.Tenant, ID: r.ID, UserID: r.User,
			Kind: string(r.Kind), MemoryType: r.MemoryType, ConversationID: r.ConversationID,
			At: dbTime(r.At), Vector: vector.Encode(r.Vector),
		})
	}
	return rows
}

// DeleteVectors removes the tenant's records with these ids.
func (s *LocalVectorStore) DeleteVectors(ctx context.Context, tenant string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	return s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewDelete().Model((*localVectorRow)(nil)).
			Where("model = ?", s.model).
			Where("dim = ?", s.dim).
			Where("tenant_id = ?", tenant).
			Where("id IN (?)", bun.List(ids)).
			Exec(ctx)
		return wrapErr("delete vectors", err)
	})
}

// LoadVectors hands every stored record of this model to fn, LoadBatchSize at a
// time, in key order (keyset pages, so each page is one index range scan).
func (s *LocalVectorStore) LoadVectors(ctx context.Context, fn func(batch []ports.VectorRecord) error) error {
	var afterTenant, afterID string
	first := true
	for {
		var rows []localVectorRow
		q := s.db.bun.NewSelect().Model(&rows).
			Where("lv.model = ?", s.model).
			Where("lv.dim = ?", s.dim)
		if !first {
			q = q.Where("(lv.tenant_id, lv.id) > (?, ?)", afterTenant, afterID)
		}
		if err := q.OrderExpr("lv.tenant_id, lv.id").Limit(LoadBatchSize).Scan(ctx); err != nil {
			return wrapErr("load vectors", err)
		}
		if len(rows) == 0 {
			return nil
		}
		batch := make([]ports.VectorRecord, 0, len(rows))
		for i := range rows {
			r, err := rows[i].toRecord()
			if err != nil {
				return err
			}
			batch = append(batch, r)
		}
		if err := fn(batch); err != nil {
			return err
		}
		if len(rows) < LoadBatchSize {
			return nil
		}
		last := rows[len(rows)-1]
		afterTenant, afterID, first = last.TenantID, last.ID, false
	}
}

// CountVectors is how many vectors of this model are stored.
func (s *LocalVectorStore) CountVectors(ctx context.Context) (int64, error) {
	n, err := s.db.bun.NewSelect().Model((*localVectorRow)(nil)).
		Where("lv.model = ?", s.model).
		Where("lv.dim = ?", s.dim).
		Count(ctx)
	return int64(n), wrapErr("count vectors", err)
}

// PurgeOtherModels deletes the vectors of every other model or dimension (left
// behind by a model change once the reindex is done) and says how many went.
func (s *LocalVectorStore) PurgeOtherModels(ctx context.Context) (int64, error) {
	var n int64
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewDelete().Model((*localVectorRow)(nil)).
			WhereGroup(" AND ", func(q *bun.DeleteQuery) *bun.DeleteQuery {
				return q.Where("model <> ?", s.model).WhereOr("dim <> ?", s.dim)
			}).
			Exec(ctx)
		if err != nil {
			return wrapErr("purge vectors of other models", err)
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return n, err
}

// localVectorRow is one row of local_vectors.
type localVectorRow struct {
	bun.BaseModel `bun:"table:local_vectors,alias:lv"`

	Model          string    `bun:"model,pk"`
	Dim            int       `bun:"dim,pk"`
	TenantID       string    `bun:"tenant_id,pk"`
	ID             string    `bun:"id,pk"`
	UserID         string    `bun:"user_id"`
	Kind           string    `bun:"kind"`
	MemoryType     string    `bun:"memory_type,nullzero"`
	ConversationID string    `bun:"conversation_id,nullzero"`
	At             time.Time `bun:"at"`
	Vector         []byte    `bun:"vector"`
}

func (r *localVectorRow) toRecord() (ports.VectorRecord, error) {
	v, err := vector.Decode(r.Vector)
	if err != nil {
		return ports.VectorRecord{}, fmt.Errorf("sqlstore: load vector %s/%s: %w", r.TenantID, r.ID, err)
	}
	return ports.VectorRecord{
		ID: r.ID, Tenant: r.TenantID, User: r.UserID, Kind: memory.Kind(r.Kind),
		MemoryType: r.MemoryType, ConversationID: r.ConversationID, At: dbTime(r.At), Vector: v,
	}, nil
}

// DeleteUserVectors removes every vector of the user, of every model and dimension
// (an erasure leaves none behind, not even of an old model), and says how many went.
func (s *LocalVectorStore) DeleteUserVectors(ctx context.Context, tenant, user string) (int64, error) {
	var n int64
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewDelete().Model((*localVectorRow)(nil)).
			Where("tenant_id = ?", tenant).
			Where("user_id = ?", user).
			Exec(ctx)
		if err != nil {
			return wrapErr("delete user vectors", err)
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return n, err
}

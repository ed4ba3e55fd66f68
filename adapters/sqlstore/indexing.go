package sqlstore

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"engram/domain/memory"
	"engram/ports"
)

// VectorSyncStore serves the indexer (ports.VectorSyncStore) from the vector_*
// columns of long_term_memories and conversation_messages.
//
// Memories are claimed row by row with FOR UPDATE SKIP LOCKED on PostgreSQL, so
// indexers take different rows without waiting for each other. Messages are
// claimed by whole conversations (a message's vector mixes in its neighbours'), and
// whether another indexer holds a conversation must be read after that indexer's
// claim committed: on PostgreSQL, claims of messages take turns on a transaction
// advisory lock (a claim is one short UPDATE). SQLite runs everything under its
// single writer.
type VectorSyncStore struct {
	db *DB
}

var _ ports.VectorSyncStore = (*VectorSyncStore)(nil)

// NewVectorSyncStore serves the indexer from db.
func NewVectorSyncStore(db *DB) *VectorSyncStore { return &VectorSyncStore{db: db} }

// columnsOf lists a row type's columns for a RETURNING clause. `RETURNING *` would
// also return the columns later migrations add, which bun refuses to scan into a
// struct that does not know them.
func columnsOf(db *DB, model any) string {
	table := db.bun.Table(reflect.TypeOf(model))
	names := make([]string, len(table.Fields))
	for i, f := range table.Fields {
		names[i] = string(f.SQLName)
	}
	return strings.Join(names, ", ")
}

// nullable turns zero values into NULL for raw statements.
func nullable[T comparable](v T) any {
	var zero T
	if v == zero {
		return nil
	}
	return v
}

func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return dbTime(t)
}

// memoryClaimRow is a claimed memory with the indexer's bookkeeping.
type memoryClaimRow struct {
	memoryRow      `bun:",extend"`
	VectorAttempts int       `bun:"vector_attempts"`
	VectorQueuedAt time.Time `bun:"vector_queued_at,nullzero"`
}

// dueMemories is the WHERE clause of due memories (alias m, ?0 = now). Its first
// condition is the partial index's predicate, so PostgreSQL and SQLite use it.
const dueMemories = `m.vector_status IN ('DIRTY', 'FAILED')
	AND (m.vector_status = 'DIRTY' OR m.vector_next_attempt_at IS NULL OR m.vector_next_attempt_at <= ?0)
	AND (m.vector_claim_until IS NULL OR m.vector_claim_until <= ?0)`

// ClaimMemoryVectors claims up to c.Limit due memories, oldest change first, in
// one UPDATE whose subquery skips rows other indexers have locked.
func (s *VectorSyncStore) ClaimMemoryVectors(ctx context.Context, c ports.VectorClaim) ([]ports.ClaimedMemory, error) {
	if c.Worker == "" || c.Lease <= 0 {
		return nil, fmt.Errorf("sqlstore: claim memory vectors: a worker and a positive lease are required")
	}
	lock := ""
	if s.db.dialect == DialectPostgres {
		lock = "FOR UPDATE SKIP LOCKED"
	}
	query := `UPDATE long_term_memories SET vector_claimed_by = ?1, vector_claim_until = ?2
		WHERE id IN (
			SELECT m.id FROM long_term_memories AS m
			WHERE ` + dueMemories + `
			ORDER BY m.updated_at LIMIT ?3 ` + lock + `)
		RETURNING id`
	var rows []memoryClaimRow
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var ids []string
		if err := tx.NewRaw(query, dbTime(c.Now), c.Worker, dbTime(c.Now.Add(c.Lease)), max(c.Limit, 1)).Scan(ctx, &ids); err != nil && classify(err) != classNotFound {
			return wrapErr("claim memory vectors", err)
		}
		rows = rows[:0]
		if len(ids) == 0 {
			return nil
		}
		err := tx.NewSelect().Model(&rows).Where("m.id IN (?)", bun.In(ids)).OrderExpr("m.updated_at, m.id").Scan(ctx)
		return wrapErr("read claimed memories", err)
	})
	if err != nil {
		return nil, err
	}
	out := make([]ports.ClaimedMemory, len(rows))
	for i := range rows {
		since := dbTime(rows[i].UpdatedAt)
		if q := dbTime(rows[i].VectorQueuedAt); q.After(since) {
			since = q
		}
		out[i] = ports.ClaimedMemory{Memory: memory.Restore(rows[i].toState()), Attempts: rows[i].VectorAttempts, DirtySince: since}
	}
	return out, nil
}

// FinishMemoryVectors stores each outcome where the row still has the claimed
// version and claim, and otherwise only releases the worker's claim.
func (s *VectorSyncStore) FinishMemoryVectors(ctx context.Context, worker string, outcomes []ports.MemoryVectorOutcome) (int, error) {
	stored := 0
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		stored = 0
		var stale []string
		for _, o := range outcomes {
			v := o.Vector
			res, err := tx.NewRaw(`UPDATE long_term_memories SET
					vector_status = ?, vector_synced_at = ?, vector_error = ?, vector_model = ?,
					vector_version = ?, vector_text_hash = ?, vector_attempts = ?, vector_next_attempt_at = ?,
					vector_claimed_by = NULL, vector_claim_until = NULL
				WHERE id = ? AND version = ? AND vector_claimed_by = ?`,
				string(v.Status), nullTime(v.SyncedAt), nullable(v.Error), nullable(v.Model),
				nullable(v.Version), nullable(v.TextHash), o.Attempts, nullTime(o.NextAttempt),
				o.ID, o.Version, worker).Exec(ctx)
			if err != nil {
				return wrapErr("finish memory vector", err)
			}
			if n, _ := res.RowsAffected(); n > 0 {
				stored++
			} else {
				stale = append(stale, o.ID)
			}
		}
		if len(stale) > 0 {
			_, err := tx.NewRaw(`UPDATE long_term_memories SET vector_claimed_by = NULL, vector_claim_until = NULL
				WHERE id IN (?) AND vector_claimed_by = ?`, bun.In(stale), worker).Exec(ctx)
			return wrapErr("release memory vector claims", err)
		}
		return nil
	})
	return stored, err
}

// ReleaseVectorClaims clears every claim of worker, memories and messages.
func (s *VectorSyncStore) ReleaseVectorClaims(ctx context.Context, worker string) error {
	return s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		for _, table := range []string{"long_term_memories", "conversation_messages"} {
			_, err := tx.NewRaw(`UPDATE `+table+` SET vector_claimed_by = NULL, vector_claim_until = NULL
				WHERE vector_claimed_by = ?`, worker).Exec(ctx)
			if err != nil {
				return wrapErr("release vector claims", err)
			}
		}
		return nil
	})
}

// RequeueVectors marks the tenant's (or every tenant's) memories and messages
// DIRTY and releases their claims. Memories forget their text hash, so they are
// embedded and written again; messages keep their embedding (reused when the model
// is unchanged) and have their vectors written again.
func (s *VectorSyncStore) RequeueVectors(ctx context.Context, tenant string, now time.Time) (ports.Requeued, error) {
	var n ports.Requeued
	scoped := ""
	args := []any{dbTime(now)}
	if tenant != "" {
		scoped = " WHERE tenant_id = ?"
		args = append(args, tenant)
	}
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewRaw(`UPDATE long_term_memories SET vector_status = 'DIRTY', vector_text_hash = NULL,
				vector_error = NULL, vector_attempts = 0, vector_next_attempt_at = NULL,
				vector_claimed_by = NULL, vector_claim_until = NULL, vector_queued_at = ?`+scoped, args...).Exec(ctx)
		if err != nil {
			return wrapErr("requeue memory vectors", err)
		}
		n.Memories, _ = res.RowsAffected()
		res, err = tx.NewRaw(`UPDATE conversation_messages SET vector_status = 'DIRTY',
				vector_error = NULL, vector_attempts = 0, vector_next_attempt_at = NULL,
				vector_claimed_by = NULL, vector_claim_until = NULL, vector_queued_at = ?`+scoped, args...).Exec(ctx)
		if err != nil {
			return wrapErr("requeue message vectors", err)
		}
		n.Messages, _ = res.RowsAffected()
		return nil
	})
	return n, err
}

// VectorBacklog counts DIRTY and FAILED rows through the partial indexes, and
// finds when the longest-waiting one started waiting.
func (s *VectorSyncStore) VectorBacklog(ctx context.Context) (ports.VectorBacklog, error) {
	var b ports.VectorBacklog
	for _, src := range []struct {
		table, since  string
		dirty, failed *int64
	}{
		{"long_term_memories", "updated_at", &b.DirtyMemories, &b.FailedMemories},
		{"conversation_messages", "received_at", &b.DirtyMessages, &b.FailedMessages},
	} {
		var counts []struct {
			Status string `bun:"status"`
			N      int64  `bun:"n"`
		}
		err := s.db.bun.NewRaw(`SELECT vector_status AS status, count(*) AS n FROM `+src.table+`
			WHERE vector_status IN ('DIRTY', 'FAILED') GROUP BY vector_status`).Scan(ctx, &counts)
		if err != nil {
			return b, wrapErr("vector backlog", err)
		}
		for _, c := range counts {
			switch memory.VectorStatus(c.Status) {
			case memory.VectorDirty:
				*src.dirty = c.N
			case memory.VectorFailed:
				*src.failed = c.N
			}
		}
		if *src.dirty+*src.failed == 0 {
			continue
		}
		var oldest []struct {
			At time.Time `bun:"at"`
		}
		err = s.db.bun.NewRaw(`SELECT CASE WHEN vector_queued_at > `+src.since+` THEN vector_queued_at ELSE `+src.since+` END AS at
			FROM `+src.table+` WHERE vector_status IN ('DIRTY', 'FAILED') ORDER BY at LIMIT 1`).Scan(ctx, &oldest)
		if err != nil {
			return b, wrapErr("oldest vector backlog", err)
		}
		if len(oldest) == 1 {
			at := dbTime(oldest[0].At)
			if b.OldestDirty.IsZero() || at.Before(b.OldestDirty) {
				b.OldestDirty = at
			}
		}
	}
	return b, nil
}

package sqlstore

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"engram/domain/memory"
	"engram/ports"
)

// VectorQueue serves the indexer (ports.VectorQueue) and the reindex
// (ports.VectorRequeuer) from the vector_* columns of long_term_memories and conversation_messages.
//
// Memories are claimed row by row with FOR UPDATE SKIP LOCKED on PostgreSQL, so
// indexers take different rows without waiting for each other. Messages are
// claimed by whole conversations (a message's vector mixes in its neighbours'), and
// whether another indexer holds a conversation must be read after that indexer's
// claim committed: on PostgreSQL, claims of messages take turns on a transaction
// advisory lock (a claim is one short UPDATE). SQLite runs everything under its
// single writer.
type VectorQueue struct {
	db *DB
}

var (
	_ ports.VectorQueue    = (*VectorQueue)(nil)
	_ ports.VectorRequeuer = (*VectorQueue)(nil)
)

// NewVectorQueue serves the indexer from db.
func NewVectorQueue(db *DB) *VectorQueue { return &VectorQueue{db: db} }

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

// ClaimMemories claims up to c.Limit due memories, oldest change first, in
// one UPDATE whose subquery skips rows other indexers have locked.
func (s *VectorQueue) ClaimMemories(ctx context.Context, c ports.VectorClaim) ([]ports.ClaimedMemory, error) {
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
			WHERE ` + dueMemories + ` AND ` + notErasing("m") + `
			ORDER BY m.updated_at LIMIT ?3 ` + lock + `)
		RETURNING ` + columnsOf(s.db, (*memoryClaimRow)(nil))
	var rows []memoryClaimRow
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		rows = rows[:0]
		err := tx.NewRaw(query, dbTime(c.Now), c.Worker, dbTime(c.Now.Add(c.Lease)), max(c.Limit, 1)).Scan(ctx, &rows)
		if err != nil && classify(err) != classNotFound {
			return wrapErr("claim memory vectors", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(rows, func(a, b memoryClaimRow) int { // RETURNING has no order
		if c := a.UpdatedAt.Compare(b.UpdatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
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

// FinishMemories stores each outcome where the row still has the claimed
// version and claim, and otherwise only releases the worker's claim.
func (s *VectorQueue) FinishMemories(ctx context.Context, worker string, outcomes []ports.MemoryVectorOutcome) (int, error) {
	stored := 0
	args := make([][]any, len(outcomes))
	for i, o := range outcomes {
		v := o.Vector
		args[i] = []any{string(v.Status), s.db.bindTime(v.SyncedAt), nullable(v.Error), nullable(v.Model),
			nullable(v.Version), nullable(v.TextHash), o.Attempts, s.db.bindTime(o.NextAttempt),
			o.ID, o.Version, worker}
	}
	if s.db.dialect == DialectPostgres {
		return s.finishMemoryVectorsPostgres(ctx, worker, outcomes)
	}
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		stored = 0
		changed, err := s.db.execEach(ctx, tx, "finish memory vector", `UPDATE long_term_memories SET
				vector_status = ?, vector_synced_at = ?, vector_error = ?, vector_model = ?,
				vector_version = ?, vector_text_hash = ?, vector_attempts = ?, vector_next_attempt_at = ?,
				vector_claimed_by = NULL, vector_claim_until = NULL
			WHERE id = ? AND version = ? AND vector_claimed_by = ?`, args)
		if err != nil {
			return err
		}
		var stale []string
		for i, n := range changed {
			if n > 0 {
				stored++
			} else {
				stale = append(stale, outcomes[i].ID)
			}
		}
		if len(stale) > 0 {
			_, err := tx.NewRaw(`UPDATE long_term_memories SET vector_claimed_by = NULL, vector_claim_until = NULL
				WHERE id IN (?) AND vector_claimed_by = ?`, bun.List(stale), worker).Exec(ctx)
			return wrapErr("release memory vector claims", err)
		}
		return nil
	})
	return stored, err
}

// finishMemoryVectorsPostgres stores every outcome with one UPDATE over arrays
// (one round trip per batch instead of one per memory).
func (s *VectorQueue) finishMemoryVectorsPostgres(ctx context.Context, worker string, outcomes []ports.MemoryVectorOutcome) (int, error) {
	n := len(outcomes)
	ids, statuses, synced, errs, models, hashes, next := make([]string, n), make([]string, n), make([]string, n),
		make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	versions := make([]int64, n)
	modelVersions, attempts := make([]int, n), make([]int, n)
	for i, o := range outcomes {
		v := o.Vector
		ids[i], versions[i], statuses[i] = o.ID, o.Version, string(v.Status)
		synced[i], errs[i], models[i] = pgTime(v.SyncedAt), v.Error, v.Model
		modelVersions[i], hashes[i], attempts[i], next[i] = v.Version, v.TextHash, o.Attempts, pgTime(o.NextAttempt)
	}
	stored := 0
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var done []string
		err := tx.NewRaw(`UPDATE long_term_memories AS m SET
				vector_status = v.status,
				vector_synced_at = NULLIF(v.synced_at, '')::timestamptz,
				vector_error = NULLIF(v.error, ''),
				vector_model = NULLIF(v.model, ''),
				vector_version = NULLIF(v.model_version, 0),
				vector_text_hash = NULLIF(v.hash, ''),
				vector_attempts = v.attempts,
				vector_next_attempt_at = NULLIF(v.next_at, '')::timestamptz,
				vector_claimed_by = NULL, vector_claim_until = NULL
			FROM unnest(?::text[], ?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[], ?::int[], ?::text[], ?::int[], ?::text[])
				AS v(id, version, status, synced_at, error, model, model_version, hash, attempts, next_at)
			WHERE m.id = v.id AND m.version = v.version AND m.vector_claimed_by = ?
			RETURNING m.id`,
			pgdialect.Array(ids), pgdialect.Array(versions), pgdialect.Array(statuses), pgdialect.Array(synced),
			pgdialect.Array(errs), pgdialect.Array(models), pgdialect.Array(modelVersions), pgdialect.Array(hashes),
			pgdialect.Array(attempts), pgdialect.Array(next), worker).Scan(ctx, &done)
		if err != nil && classify(err) != classNotFound {
			return wrapErr("finish memory vectors", err)
		}
		stored = len(done)
		if stored == n {
			return nil
		}
		// The rest were edited or taken over meanwhile: release what is still ours.
		_, err = tx.NewRaw(`UPDATE long_term_memories SET vector_claimed_by = NULL, vector_claim_until = NULL
			WHERE id IN (?) AND vector_claimed_by = ?`, bun.List(ids), worker).Exec(ctx)
		return wrapErr("release memory vector claims", err)
	})
	return stored, err
}

// pgTime is a time as array text for PostgreSQL; empty for the zero time.
func pgTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return dbTime(t).Format(time.RFC3339Nano)
}

// Release clears every claim of worker, memories and messages.
func (s *VectorQueue) Release(ctx context.Context, worker string) error {
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

// Requeue marks the tenant's (or every tenant's) memories and messages
// DIRTY and releases their claims. Memories forget their text hash, so they are
// embedded and written again; messages keep their embedding (reused when the model
// is unchanged) and have their vectors written again.
func (s *VectorQueue) Requeue(ctx context.Context, tenant string, now time.Time) (ports.Requeued, error) {
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

// Backlog counts DIRTY and FAILED rows through the partial indexes, and
// finds when the longest-waiting one started waiting.
func (s *VectorQueue) Backlog(ctx context.Context) (ports.VectorBacklog, error) {
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

// Bound statements. bun writes arguments into the SQL text, so each statement of a
// batch is parsed anew, vectors included as hex; the indexer's hot writes run one
// prepared statement per batch with bound arguments instead. Placeholders are
// written as ? and numbered for PostgreSQL; times are bound in the form bun
// writes them on SQLite, so they compare with the rest of the column.

// bindSQL numbers the ? placeholders of q for PostgreSQL.
func (db *DB) bindSQL(q string) string {
	if db.dialect != DialectPostgres {
		return q
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteByte(q[i])
	}
	return b.String()
}

// bindTime is a time as a bound argument: NULL when zero.
func (db *DB) bindTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	t = dbTime(t)
	if db.dialect == DialectSQLite {
		return t.Format("2006-01-02 15:04:05.999999-07:00")
	}
	return t
}

// execEach prepares q in tx and runs it once per argument list, returning the
// rows each run changed.
func (db *DB) execEach(ctx context.Context, tx bun.Tx, op, q string, argLists [][]any) ([]int64, error) {
	stmt, err := tx.Tx.PrepareContext(ctx, db.bindSQL(q))
	if err != nil {
		return nil, wrapErr(op, err)
	}
	defer stmt.Close()
	changed := make([]int64, len(argLists))
	for i, args := range argLists {
		res, err := stmt.ExecContext(ctx, args...)
		if err != nil {
			return nil, wrapErr(op, err)
		}
		changed[i], _ = res.RowsAffected()
	}
	return changed, nil
}

// CountOtherModels counts the SYNCED memories and messages whose vectors were made
// by another embedding model than model: after a change of model they have no
// vector in the new model's index until a reindex. (A full scan; run it once, at
// start, off the request path.)
func (s *VectorQueue) CountOtherModels(ctx context.Context, model string) (memories, messages int64, err error) {
	err = s.db.bun.NewRaw(`SELECT count(*) FROM long_term_memories
		WHERE vector_status = 'SYNCED' AND vector_model IS NOT NULL AND vector_model <> ?`, model).Scan(ctx, &memories)
	if err != nil {
		return 0, 0, wrapErr("count vectors of other models", err)
	}
	err = s.db.bun.NewRaw(`SELECT count(*) FROM conversation_messages AS cm JOIN message_embeddings AS e ON e.id = cm.id
		WHERE cm.vector_status = 'SYNCED' AND e.model <> ?`, model).Scan(ctx, &messages)
	if err != nil {
		return 0, 0, wrapErr("count vectors of other models", err)
	}
	return memories, messages, nil
}

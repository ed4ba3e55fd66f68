package sqlstore

import (
	"context"
	"encoding/hex"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/domain/vector"
	"engram/ports"
)

// messageVectorRow is a message with its vector bookkeeping and, when read with
// one, its own embedding (from message_embeddings).
type messageVectorRow struct {
	messageRow     `bun:",extend"`
	VectorStatus   string    `bun:"vector_status"`
	VectorAttempts int       `bun:"vector_attempts"`
	VectorQueuedAt time.Time `bun:"vector_queued_at,nullzero"`

	EmbeddingModel string `bun:"emb_model,scanonly"`
	EmbeddingHash  string `bun:"emb_text_hash,scanonly"`
	Embedding      []byte `bun:"emb_embedding,scanonly"`
}

// messageVectorColumns is the select list of a message joined with its embedding
// (aliases cm and e).
func messageVectorColumns(db *DB) string {
	table := db.bun.Table(reflect.TypeOf((*messageVectorRow)(nil)))
	var cols []string
	for _, f := range table.Fields {
		cols = append(cols, "cm."+string(f.SQLName))
	}
	return strings.Join(cols, ", ") + ", e.model AS emb_model, e.text_hash AS emb_text_hash, e.embedding AS emb_embedding"
}

func (r *messageVectorRow) toMessageVector() (ports.MessageVector, error) {
	mv := ports.MessageVector{
		Message:  r.toMessage(),
		Status:   memory.VectorStatus(r.VectorStatus),
		Model:    r.EmbeddingModel,
		TextHash: r.EmbeddingHash,
		Attempts: r.VectorAttempts,
	}
	mv.DirtySince = dbTime(r.ReceivedAt)
	if q := dbTime(r.VectorQueuedAt); q.After(mv.DirtySince) {
		mv.DirtySince = q
	}
	if len(r.Embedding) > 0 {
		v, err := vector.Decode(r.Embedding)
		if err != nil {
			return ports.MessageVector{}, fmt.Errorf("sqlstore: message %s: embedding: %w", r.ID, err)
		}
		mv.Embedding = v
	}
	return mv, nil
}

func toMessageVectors(rows []messageVectorRow) ([]ports.MessageVector, error) {
	out := make([]ports.MessageVector, len(rows))
	for i := range rows {
		mv, err := rows[i].toMessageVector()
		if err != nil {
			return nil, err
		}
		out[i] = mv
	}
	return out, nil
}

// dueMessages is the WHERE clause of due messages (alias A, ?0 = now); its first
// condition is the partial index's predicate.
const dueMessages = `A.vector_status IN ('DIRTY', 'FAILED')
	AND (A.vector_status = 'DIRTY' OR A.vector_next_attempt_at IS NULL OR A.vector_next_attempt_at <= ?0)
	AND (A.vector_claim_until IS NULL OR A.vector_claim_until <= ?0)`

// messageClaimLock is the PostgreSQL advisory lock that message claims take turns
// on ("engram" in ASCII).
const messageClaimLock = 0x656e6772616d

// ClaimMessages claims, in one UPDATE, up to c.Limit due messages (oldest
// arrival first) of the conversations of the oldest due messages that no indexer
// holds. A conversation is held while any of its messages has a live claim.
func (s *VectorQueue) ClaimMessages(ctx context.Context, c ports.VectorClaim) ([]ports.MessageVector, error) {
	if c.Worker == "" || c.Lease <= 0 {
		return nil, fmt.Errorf("sqlstore: claim message vectors: a worker and a positive lease are required")
	}
	due := func(alias string) string { return strings.ReplaceAll(dueMessages, "A.", alias+".") }
	limit := max(c.Limit, 1)
	query := `UPDATE conversation_messages SET vector_claimed_by = ?1, vector_claim_until = ?2
		WHERE id IN (
			SELECT c.id FROM conversation_messages AS c
			WHERE (c.tenant_id, c.user_id, c.conversation_id) IN (
				SELECT d.tenant_id, d.user_id, d.conversation_id FROM conversation_messages AS d
				WHERE ` + due("d") + ` AND ` + notErasing("d") + `
				AND NOT EXISTS (
					SELECT 1 FROM conversation_messages AS h
					WHERE h.tenant_id = d.tenant_id AND h.user_id = d.user_id AND h.conversation_id = d.conversation_id
					AND h.vector_claimed_by IS NOT NULL AND h.vector_claim_until > ?0)
				ORDER BY d.received_at LIMIT ?3)
			AND ` + due("c") + `
			ORDER BY c.received_at LIMIT ?3)
		RETURNING ` + columnsOf(s.db, (*messageVectorRow)(nil))
	var rows []messageVectorRow
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if s.db.dialect == DialectPostgres {
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?)", int64(messageClaimLock)); err != nil {
				return wrapErr("lock message vector claims", err)
			}
		}
		rows = rows[:0]
		err := tx.NewRaw(query, dbTime(c.Now), c.Worker, dbTime(c.Now.Add(c.Lease)), limit).Scan(ctx, &rows)
		if err != nil && classify(err) != classNotFound {
			return wrapErr("claim message vectors", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := s.attachEmbeddings(ctx, rows); err != nil {
		return nil, err
	}
	// Each conversation's messages in order, the conversation of the oldest
	// message first (RETURNING has no order).
	slices.SortFunc(rows, func(a, b messageVectorRow) int {
		for _, c := range []int{strings.Compare(a.TenantID, b.TenantID), strings.Compare(a.UserID, b.UserID),
			strings.Compare(a.ConversationID, b.ConversationID), a.CreatedAt.Compare(b.CreatedAt)} {
			if c != 0 {
				return c
			}
		}
		return strings.Compare(a.ID, b.ID)
	})
	out, err := toMessageVectors(rows)
	if err != nil {
		return nil, err
	}
	// The conversation of the oldest message first, as memories go oldest first.
	first := map[string]time.Time{}
	key := func(m conversation.Message) string {
		return m.Scope.Tenant + "\x00" + m.Scope.User + "\x00" + m.ConversationID
	}
	for _, mv := range out {
		k := key(mv.Message)
		if at, ok := first[k]; !ok || mv.Message.ReceivedAt.Before(at) {
			first[k] = mv.Message.ReceivedAt
		}
	}
	slices.SortStableFunc(out, func(a, b ports.MessageVector) int {
		return first[key(a.Message)].Compare(first[key(b.Message)])
	})
	return out, nil
}

// attachEmbeddings reads the stored embeddings of rows (one IN query).
func (s *VectorQueue) attachEmbeddings(ctx context.Context, rows []messageVectorRow) error {
	if len(rows) == 0 {
		return nil
	}
	ids := make([]string, len(rows))
	for i := range rows {
		ids[i] = rows[i].ID
	}
	var embs []embeddingRow
	if err := s.db.bun.NewSelect().Model(&embs).Where("me.id IN (?)", bun.List(ids)).Scan(ctx); err != nil && classify(err) != classNotFound {
		return wrapErr("read message embeddings", err)
	}
	byID := make(map[string]*embeddingRow, len(embs))
	for i := range embs {
		byID[embs[i].ID] = &embs[i]
	}
	for i := range rows {
		if e := byID[rows[i].ID]; e != nil {
			rows[i].EmbeddingModel, rows[i].EmbeddingHash, rows[i].Embedding = e.Model, e.TextHash, e.Embedding
		}
	}
	return nil
}

// embeddingRow is one row of message_embeddings.
type embeddingRow struct {
	bun.BaseModel `bun:"table:message_embeddings,alias:me"`

	ID        string `bun:"id,pk"`
	Model     string `bun:"model"`
	TextHash  string `bun:"text_hash"`
	Embedding []byte `bun:"embedding"`
}

// MessageWindow reads margin messages before first, the messages from first to
// last, and margin messages after last, in one statement of three range scans of
// the conversation index.
func (s *VectorQueue) MessageWindow(ctx context.Context, first, last conversation.Message, margin int) ([]ports.MessageVector, error) {
	scope := `SELECT ` + messageVectorColumns(s.db) + ` FROM conversation_messages AS cm
		LEFT JOIN message_embeddings AS e ON e.id = cm.id
		WHERE cm.tenant_id = ?0 AND cm.user_id = ?1 AND cm.conversation_id = ?2`
	query := scope + ` AND (cm.created_at, cm.id) >= (?3, ?4) AND (cm.created_at, cm.id) <= (?5, ?6)`
	if margin > 0 {
		query = `SELECT * FROM (` + scope + ` AND (cm.created_at, cm.id) < (?3, ?4) ORDER BY cm.created_at DESC, cm.id DESC LIMIT ?7) AS b
			UNION ALL ` + query + `
			UNION ALL SELECT * FROM (` + scope + ` AND (cm.created_at, cm.id) > (?5, ?6) ORDER BY cm.created_at, cm.id LIMIT ?7) AS a`
	}
	var rows []messageVectorRow
	err := s.db.bun.NewRaw(query, first.Scope.Tenant, first.Scope.User, first.ConversationID,
		dbTime(first.CreatedAt), first.Seq, dbTime(last.CreatedAt), last.Seq, margin).Scan(ctx, &rows)
	if err != nil && classify(err) != classNotFound {
		return nil, wrapErr("message window", err)
	}
	slices.SortFunc(rows, func(a, b messageVectorRow) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return toMessageVectors(rows)
}

// FinishMessages stores each outcome (and embedding) of a message the worker
// still holds, and releases it.
func (s *VectorQueue) FinishMessages(ctx context.Context, worker string, outcomes []ports.MessageVectorOutcome) (int, error) {
	if s.db.dialect == DialectPostgres {
		return s.finishMessageVectorsPostgres(ctx, worker, outcomes)
	}
	var (
		args     = make([][]any, len(outcomes))
		embedded [][]any
	)
	for i, o := range outcomes {
		var syncedAt any
		if o.Status == memory.VectorSynced {
			syncedAt = s.db.bindTime(o.SyncedAt)
		}
		args[i] = []any{string(o.Status), nullable(o.Error), o.Attempts, s.db.bindTime(o.NextAttempt), syncedAt, o.Seq, worker}
		if o.Embedding != nil {
			embedded = append(embedded, []any{o.Seq, o.Model, o.TextHash, vector.Encode(o.Embedding), worker})
		}
	}
	stored := 0
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		stored = 0
		// Embeddings first, while the claim still says the message is the worker's.
		if len(embedded) > 0 {
			_, err := s.db.execEach(ctx, tx, "store message embedding", `INSERT INTO message_embeddings (id, model, text_hash, embedding)
				SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM conversation_messages WHERE id = ?1 AND vector_claimed_by = ?)
				ON CONFLICT (id) DO UPDATE SET model = EXCLUDED.model, text_hash = EXCLUDED.text_hash, embedding = EXCLUDED.embedding`, embedded)
			if err != nil {
				return err
			}
		}
		changed, err := s.db.execEach(ctx, tx, "finish message vector", `UPDATE conversation_messages SET
				vector_status = ?, vector_error = ?, vector_attempts = ?, vector_next_attempt_at = ?,
				vector_synced_at = COALESCE(?, vector_synced_at),
				vector_claimed_by = NULL, vector_claim_until = NULL
			WHERE id = ? AND vector_claimed_by = ?`, args)
		for _, n := range changed {
			if n > 0 {
				stored++
			}
		}
		return err
	})
	return stored, err
}

// finishMessageVectorsPostgres stores every outcome with one UPDATE and every
// embedding with one INSERT, over arrays.
func (s *VectorQueue) finishMessageVectorsPostgres(ctx context.Context, worker string, outcomes []ports.MessageVectorOutcome) (int, error) {
	n := len(outcomes)
	ids, statuses, errs, next, synced := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	attempts := make([]int, n)
	var embIDs, models, hashes, embeddings []string
	for i, o := range outcomes {
		ids[i], statuses[i], errs[i], attempts[i], next[i] = o.Seq, string(o.Status), o.Error, o.Attempts, pgTime(o.NextAttempt)
		if o.Status == memory.VectorSynced {
			synced[i] = pgTime(o.SyncedAt)
		}
		if o.Embedding != nil {
			embIDs = append(embIDs, o.Seq)
			models = append(models, o.Model)
			hashes = append(hashes, o.TextHash)
			embeddings = append(embeddings, hex.EncodeToString(vector.Encode(o.Embedding)))
		}
	}
	stored := 0
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if len(embIDs) > 0 {
			_, err := tx.NewRaw(`INSERT INTO message_embeddings (id, model, text_hash, embedding)
				SELECT v.id, v.model, v.hash, decode(v.embedding, 'hex')
				FROM unnest(?::text[], ?::text[], ?::text[], ?::text[]) AS v(id, model, hash, embedding)
				JOIN conversation_messages AS c ON c.id = v.id AND c.vector_claimed_by = ?
				ON CONFLICT (id) DO UPDATE SET model = EXCLUDED.model, text_hash = EXCLUDED.text_hash, embedding = EXCLUDED.embedding`,
				pgdialect.Array(embIDs), pgdialect.Array(models), pgdialect.Array(hashes), pgdialect.Array(embeddings), worker).Exec(ctx)
			if err != nil {
				return wrapErr("store message embeddings", err)
			}
		}
		var done []string
		err := tx.NewRaw(`UPDATE conversation_messages AS c SET
				vector_status = v.status,
				vector_error = NULLIF(v.error, ''),
				vector_attempts = v.attempts,
				vector_next_attempt_at = NULLIF(v.next_at, '')::timestamptz,
				vector_synced_at = COALESCE(NULLIF(v.synced_at, '')::timestamptz, c.vector_synced_at),
				vector_claimed_by = NULL, vector_claim_until = NULL
			FROM unnest(?::text[], ?::text[], ?::text[], ?::int[], ?::text[], ?::text[])
				AS v(id, status, error, attempts, next_at, synced_at)
			WHERE c.id = v.id AND c.vector_claimed_by = ?
			RETURNING c.id`,
			pgdialect.Array(ids), pgdialect.Array(statuses), pgdialect.Array(errs), pgdialect.Array(attempts),
			pgdialect.Array(next), pgdialect.Array(synced), worker).Scan(ctx, &done)
		if err != nil && classify(err) != classNotFound {
			return wrapErr("finish message vectors", err)
		}
		stored = len(done)
		return nil
	})
	return stored, err
}

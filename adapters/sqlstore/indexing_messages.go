package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
)

// messageVectorRow is a message with its vector bookkeeping.
type messageVectorRow struct {
	messageRow      `bun:",extend"`
	VectorStatus    string    `bun:"vector_status"`
	VectorModel     string    `bun:"vector_model,nullzero"`
	VectorTextHash  string    `bun:"vector_text_hash,nullzero"`
	VectorEmbedding []byte    `bun:"vector_embedding"`
	VectorAttempts  int       `bun:"vector_attempts"`
	VectorQueuedAt  time.Time `bun:"vector_queued_at,nullzero"`
}

func (r *messageVectorRow) toMessageVector() (ports.MessageVector, error) {
	mv := ports.MessageVector{
		Message:  r.toMessage(),
		Status:   memory.VectorStatus(r.VectorStatus),
		Model:    r.VectorModel,
		TextHash: r.VectorTextHash,
		Attempts: r.VectorAttempts,
	}
	mv.DirtySince = dbTime(r.ReceivedAt)
	if q := dbTime(r.VectorQueuedAt); q.After(mv.DirtySince) {
		mv.DirtySince = q
	}
	if len(r.VectorEmbedding) > 0 {
		v, err := DecodeVector(r.VectorEmbedding)
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

// ClaimMessageVectors claims, in one UPDATE, up to c.Limit due messages (oldest
// arrival first) of the conversations of the oldest due messages that no indexer
// holds. A conversation is held while any of its messages has a live claim.
func (s *VectorSyncStore) ClaimMessageVectors(ctx context.Context, c ports.VectorClaim) ([]ports.MessageVector, error) {
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
				WHERE ` + due("d") + `
				AND NOT EXISTS (
					SELECT 1 FROM conversation_messages AS h
					WHERE h.tenant_id = d.tenant_id AND h.user_id = d.user_id AND h.conversation_id = d.conversation_id
					AND h.vector_claimed_by IS NOT NULL AND h.vector_claim_until > ?0)
				ORDER BY d.received_at LIMIT ?3)
			AND ` + due("c") + `
			ORDER BY c.received_at LIMIT ?3)
		RETURNING id`
	var rows []messageVectorRow
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if s.db.dialect == DialectPostgres {
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?)", int64(messageClaimLock)); err != nil {
				return wrapErr("lock message vector claims", err)
			}
		}
		var ids []string
		if err := tx.NewRaw(query, dbTime(c.Now), c.Worker, dbTime(c.Now.Add(c.Lease)), limit).Scan(ctx, &ids); err != nil && classify(err) != classNotFound {
			return wrapErr("claim message vectors", err)
		}
		rows = rows[:0]
		if len(ids) == 0 {
			return nil
		}
		err := tx.NewSelect().Model(&rows).Where("cm.id IN (?)", bun.In(ids)).
			OrderExpr("cm.tenant_id, cm.user_id, cm.conversation_id, cm.created_at, cm.id").Scan(ctx)
		return wrapErr("read claimed messages", err)
	})
	if err != nil {
		return nil, err
	}
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

// MessageWindow reads margin messages before first, the messages from first to
// last, and margin messages after last: three range scans of the conversation
// index.
func (s *VectorSyncStore) MessageWindow(ctx context.Context, first, last conversation.Message, margin int) ([]ports.MessageVector, error) {
	sc := first.Scope
	base := func(rows *[]messageVectorRow) *bun.SelectQuery {
		return s.db.bun.NewSelect().Model(rows).
			Where("cm.tenant_id = ?", sc.Tenant).
			Where("cm.user_id = ?", sc.User).
			Where("cm.conversation_id = ?", first.ConversationID)
	}
	var before, middle, after []messageVectorRow
	if margin > 0 {
		err := base(&before).Where("(cm.created_at, cm.id) < (?, ?)", dbTime(first.CreatedAt), first.Seq).
			OrderExpr("cm.created_at DESC, cm.id DESC").Limit(int64(margin)).Scan(ctx)
		if err != nil {
			return nil, wrapErr("message window", err)
		}
		slices.Reverse(before)
		err = base(&after).Where("(cm.created_at, cm.id) > (?, ?)", dbTime(last.CreatedAt), last.Seq).
			OrderExpr("cm.created_at, cm.id").Limit(int64(margin)).Scan(ctx)
		if err != nil {
			return nil, wrapErr("message window", err)
		}
	}
	err := base(&middle).
		Where("(cm.created_at, cm.id) >= (?, ?)", dbTime(first.CreatedAt), first.Seq).
		Where("(cm.created_at, cm.id) <= (?, ?)", dbTime(last.CreatedAt), last.Seq).
		OrderExpr("cm.created_at, cm.id").Scan(ctx)
	if err != nil {
		return nil, wrapErr("message window", err)
	}
	rows := append(append(before, middle...), after...)
	return toMessageVectors(rows)
}

// FinishMessageVectors stores each outcome (and embedding) of a message the worker
// still holds, and releases it.
func (s *VectorSyncStore) FinishMessageVectors(ctx context.Context, worker string, outcomes []ports.MessageVectorOutcome) (int, error) {
	stored := 0
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		stored = 0
		for _, o := range outcomes {
			q := tx.NewUpdate().Table("conversation_messages").
				Set("vector_status = ?", string(o.Status)).
				Set("vector_error = ?", nullable(o.Error)).
				Set("vector_attempts = ?", o.Attempts).
				Set("vector_next_attempt_at = ?", nullTime(o.NextAttempt)).
				Set("vector_claimed_by = NULL").
				Set("vector_claim_until = NULL")
			if o.Status == memory.VectorSynced {
				q = q.Set("vector_synced_at = ?", nullTime(o.SyncedAt))
			}
			if o.Embedding != nil {
				q = q.Set("vector_model = ?", o.Model).
					Set("vector_text_hash = ?", o.TextHash).
					Set("vector_embedding = ?", EncodeVector(o.Embedding))
			}
			res, err := q.Where("id = ?", o.Seq).Where("vector_claimed_by = ?", worker).Exec(ctx)
			if err != nil {
				return wrapErr("finish message vector", err)
			}
			if n, _ := res.RowsAffected(); n > 0 {
				stored++
			}
		}
		return nil
	})
	return stored, err
}

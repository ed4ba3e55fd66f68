package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
)

// Purges delete rows for good (README "Erasure"). A row a worker holds a live claim on is
// not deleted from under it: an extraction in flight could still write what it
// learned from a message, and an indexer in flight could write a vector back after
// the purge removed it. Such a purge returns ports.ErrConflict and is tried again
// once the claim is released or has lapsed; on PostgreSQL the rows are locked
// (FOR UPDATE) while the claims are checked, so a claim cannot be taken between the
// check and the delete.

// purgeBatch is how many rows one purge transaction deletes, so that a large user
// never holds SQLite's single writer (or PostgreSQL's row locks) for long.
const purgeBatch = 500

// Counted kinds of UserPurger.
const (
	PurgedMemories          = "memories"
	PurgedMemoryEvents      = "memory_events"
	PurgedMessages          = "messages"
	PurgedMessageEmbeddings = "message_embeddings"
	PurgedJobs              = "jobs"
)

// UserPurger deletes every row of a user from the truth tables: memories, their
// events, messages, their embeddings, the records of deleted conversations and
// the user's jobs but the open erasure
// itself (ports.UserPurger, the erasure's truth step).
type UserPurger struct {
	db    *DB
	clock ports.Clock
}

var _ ports.UserPurger = (*UserPurger)(nil)

// NewUserPurger serves ports.UserPurger from db; clock says whether a claim is live.
func NewUserPurger(db *DB, clock ports.Clock) *UserPurger { return &UserPurger{db: db, clock: clock} }

// claimRow is the claim columns of a message or memory row.
type claimRow struct {
	ID               string    `bun:"id"`
	ClaimedBy        string    `bun:"claimed_by,nullzero"`
	ClaimUntil       time.Time `bun:"claim_until,nullzero"`
	VectorClaimedBy  string    `bun:"vector_claimed_by,nullzero"`
	VectorClaimUntil time.Time `bun:"vector_claim_until,nullzero"`
}

func (r claimRow) busy(now time.Time) bool {
	live := func(by string, until time.Time) bool { return by != "" && until.After(now) }
	return live(r.ClaimedBy, r.ClaimUntil) || live(r.VectorClaimedBy, r.VectorClaimUntil)
}

// errBusy says which worker holds what the purge must delete.
func errBusy(what, id string) error {
	return fmt.Errorf("sqlstore: purge: %s %s is claimed by a worker right now: %w", what, id, ports.ErrConflict)
}

// PurgeUser deletes the user's rows batch by batch, messages first. On error the
// counts say what was deleted before it.
func (p *UserPurger) PurgeUser(ctx context.Context, scope memory.Scope) (map[string]int64, error) {
	removed := map[string]int64{PurgedMemories: 0, PurgedMemoryEvents: 0, PurgedMessages: 0, PurgedMessageEmbeddings: 0, PurgedJobs: 0}
	steps := []func(ctx context.Context, tx bun.Tx) (bool, error){
		func(ctx context.Context, tx bun.Tx) (bool, error) { return p.messageBatch(ctx, tx, scope, removed) },
		func(ctx context.Context, tx bun.Tx) (bool, error) { return p.memoryBatch(ctx, tx, scope, removed) },
		func(ctx context.Context, tx bun.Tx) (bool, error) {
			return deleteBatch(ctx, tx, "memory_events", scope, "", removed, PurgedMemoryEvents)
		},
		func(ctx context.Context, tx bun.Tx) (bool, error) {
			// The records of deleted conversations name them: small, and all at once.
			_, err := tx.NewRaw("DELETE FROM conversation_deletions WHERE tenant_id = ? AND user_id = ?", scope.Tenant, scope.User).Exec(ctx)
			return false, wrapErr("purge conversation deletions", err)
		},
		func(ctx context.Context, tx bun.Tx) (bool, error) {
			return deleteBatch(ctx, tx, "jobs", scope, `NOT (kind = 'erase_user' AND status IN ('QUEUED', 'RUNNING'))`, removed, PurgedJobs)
		},
	}
	for _, step := range steps {
		for {
			var more bool
			snapshot := copyCounts(removed)
			err := p.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
				restore(removed, snapshot) // a retried transaction counts once
				var err error
				more, err = step(ctx, tx)
				return err
			})
			if err != nil {
				restore(removed, snapshot)
				return removed, err
			}
			if !more {
				break
			}
		}
	}
	return removed, nil
}

func copyCounts(m map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func restore(m, snapshot map[string]int64) {
	for k, v := range snapshot {
		m[k] = v
	}
}

// lockRows reads the claim columns of up to purgeBatch rows of the scope in table,
// locked on PostgreSQL.
func (p *UserPurger) lockRows(ctx context.Context, tx bun.Tx, table string, scope memory.Scope, extraction bool) ([]claimRow, error) {
	cols := "id, NULL AS claimed_by, NULL AS claim_until, vector_claimed_by, vector_claim_until"
	if extraction {
		cols = "id, claimed_by, claim_until, vector_claimed_by, vector_claim_until"
	}
	lock := ""
	if p.db.dialect == DialectPostgres {
		lock = " FOR UPDATE"
	}
	var rows []claimRow
	// No ORDER BY: any batch will do, and sorting every remaining row of the user
	// for each batch would make a large user's purge quadratic.
	err := tx.NewRaw("SELECT "+cols+" FROM "+table+" WHERE tenant_id = ? AND user_id = ? LIMIT ?"+lock,
		scope.Tenant, scope.User, purgeBatch).Scan(ctx, &rows)
	if err != nil && classify(err) != classNotFound {
		return nil, wrapErr("purge: read "+table, err)
	}
	return rows, nil
}

func idsOf(rows []claimRow) []string {
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	return ids
}

// messageBatch deletes one batch of the user's messages with their embeddings.
func (p *UserPurger) messageBatch(ctx context.Context, tx bun.Tx, scope memory.Scope, removed map[string]int64) (bool, error) {
	rows, err := p.lockRows(ctx, tx, "conversation_messages", scope, true)
	if err != nil || len(rows) == 0 {
		return false, err
	}
	now := p.clock.Now()
	for _, r := range rows {
		if r.busy(now) {
			return false, errBusy("message", r.ID)
		}
	}
	ids := idsOf(rows)
	res, err := tx.NewRaw("DELETE FROM message_embeddings WHERE id IN (?)", bun.List(ids)).Exec(ctx)
	if err != nil {
		return false, wrapErr("purge message embeddings", err)
	}
	n, _ := res.RowsAffected()
	removed[PurgedMessageEmbeddings] += n
	res, err = tx.NewRaw("DELETE FROM conversation_messages WHERE id IN (?)", bun.List(ids)).Exec(ctx)
	if err != nil {
		return false, wrapErr("purge messages", err)
	}
	n, _ = res.RowsAffected()
	removed[PurgedMessages] += n
	return len(rows) == purgeBatch, nil
}

// memoryBatch deletes one batch of the user's memories.
func (p *UserPurger) memoryBatch(ctx context.Context, tx bun.Tx, scope memory.Scope, removed map[string]int64) (bool, error) {
	rows, err := p.lockRows(ctx, tx, "long_term_memories", scope, false)
	if err != nil || len(rows) == 0 {
		return false, err
	}
	now := p.clock.Now()
	for _, r := range rows {
		if r.busy(now) {
			return false, errBusy("memory", r.ID)
		}
	}
	res, err := tx.NewRaw("DELETE FROM long_term_memories WHERE id IN (?)", bun.List(idsOf(rows))).Exec(ctx)
	if err != nil {
		return false, wrapErr("purge memories", err)
	}
	n, _ := res.RowsAffected()
	removed[PurgedMemories] += n
	return len(rows) == purgeBatch, nil
}

// deleteBatch deletes one batch of the scope's rows of table (alias-free) that
// match extra, counting them under kind.
func deleteBatch(ctx context.Context, tx bun.Tx, table string, scope memory.Scope, extra string,
	removed map[string]int64, kind string,
) (bool, error) {
	where := "tenant_id = ? AND user_id = ?"
	if extra != "" {
		where += " AND " + extra
	}
	res, err := tx.NewRaw("DELETE FROM "+table+" WHERE id IN (SELECT id FROM "+table+" WHERE "+where+" LIMIT ?)",
		scope.Tenant, scope.User, purgeBatch).Exec(ctx)
	if err != nil {
		return false, wrapErr("purge "+table, err)
	}
	n, _ := res.RowsAffected()
	removed[kind] += n
	return n == purgeBatch, nil
}

// PurgeMemory deletes the memory and the events of its key, and stores the
// content-free event purge returns, in one transaction.
func (s *MemoryStore) PurgeMemory(ctx context.Context, scope memory.Scope, key memory.Key,
	purge func(current memory.Memory) memory.Event, now time.Time,
) (memory.Memory, error) {
	var was memory.Memory
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		current, err := s.loadForUpdate(ctx, tx, scope, key)
		if err != nil {
			return err
		}
		if current == nil {
			return fmt.Errorf("sqlstore: purge memory: %w", ports.ErrNotFound)
		}
		if err := refuseClaimedMemory(ctx, tx, current.ID(), now); err != nil {
			return err
		}
		ev := purge(*current)
		if err := checkPurgeEvent(ev, scope, key, current.ID()); err != nil {
			return err
		}
		if err := s.purgeMemoryRows(ctx, tx, scope, key, current.ID(), ev); err != nil {
			return err
		}
		was = *current
		return nil
	})
	if err != nil {
		return memory.Memory{}, err
	}
	return was, nil
}

// refuseClaimedMemory is errBusy while an indexer holds a live claim on the
// memory: its sync could write the vector back after the purge.
func refuseClaimedMemory(ctx context.Context, tx bun.Tx, id string, now time.Time) error {
	var claim []claimRow
	err := tx.NewRaw("SELECT id, vector_claimed_by, vector_claim_until FROM long_term_memories WHERE id = ?", id).Scan(ctx, &claim)
	if err != nil {
		return wrapErr("purge memory: read its claim", err)
	}
	if len(claim) == 1 && claim[0].busy(now) {
		return errBusy("memory", id)
	}
	return nil
}

// checkPurgeEvent refuses an event that is not the content-free PURGE of this
// memory under its purged key: it is the one trace the purge leaves.
func checkPurgeEvent(ev memory.Event, scope memory.Scope, key memory.Key, id string) error {
	purged := memory.PurgedKey(scope, key)
	if ev.Op != memory.OpPurge || ev.Before != nil || ev.After.Content != "" || ev.Scope != scope || ev.Key != purged ||
		ev.After.Key != purged || ev.MemoryID != id || ev.ID == "" {
		return fmt.Errorf("sqlstore: purge memory: the event must be a content-free PURGE of memory %s", id)
	}
	return nil
}

// purgeMemoryRows deletes the memory, its history under both keys and its lexical
// document, and records ev.
func (s *MemoryStore) purgeMemoryRows(ctx context.Context, tx bun.Tx, scope memory.Scope, key memory.Key, id string, ev memory.Event) error {
	if _, err := tx.NewRaw("DELETE FROM memory_events WHERE tenant_id = ? AND user_id = ? AND memory_key IN (?, ?)",
		scope.Tenant, scope.User, key.String(), ev.Key.String()).Exec(ctx); err != nil {
		return wrapErr("purge memory events", err)
	}
	if _, err := tx.NewRaw("DELETE FROM long_term_memories WHERE id = ?", id).Exec(ctx); err != nil {
		return wrapErr("purge memory", err)
	}
	row, err := toEventRow(ev)
	if err != nil {
		return err
	}
	if _, err := tx.NewInsert().Model(&row).Exec(ctx); err != nil {
		return wrapErr("insert purge event", err)
	}
	if s.lexical == nil {
		return nil
	}
	return s.db.deleteLexicalDocs(ctx, tx, scope, []ports.LexicalRef{{Kind: memory.KindMemory, ID: id}})
}

// DeleteMessage deletes the message and its embedding and marks its neighbours'
// vectors DIRTY, in one transaction.
func (s *MessageStore) DeleteMessage(ctx context.Context, scope memory.Scope, messageID string, neighbours int, now time.Time) (conversation.Message, error) {
	var was conversation.Message
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := s.db.guardWrite(ctx, tx, scope); err != nil {
			return err
		}
		m, err := s.messageToDelete(ctx, tx, scope, messageID, now)
		if err != nil {
			return err
		}
		around, err := s.neighbours(ctx, tx, m, neighbours)
		if err != nil {
			return err
		}
		if err := deleteMessageRows(ctx, tx, m.Seq, around, now); err != nil {
			return err
		}
		was = m
		return nil
	})
	if err != nil {
		return conversation.Message{}, err
	}
	return was, nil
}

// messageToDelete reads the message (locked on PostgreSQL), and is errBusy while
// a worker holds a live claim on it or an indexer on a message of its
// conversation: either could write back what the deletion removes.
func (s *MessageStore) messageToDelete(ctx context.Context, tx bun.Tx, scope memory.Scope, messageID string, now time.Time) (conversation.Message, error) {
	var rows []messageRow
	q := tx.NewSelect().Model(&rows).
		Where("cm.tenant_id = ?", scope.Tenant).
		Where("cm.user_id = ?", scope.User).
		Where("cm.message_id = ?", messageID)
	if s.db.dialect == DialectPostgres {
		q = q.For("UPDATE")
	}
	if err := q.Scan(ctx); err != nil && classify(err) != classNotFound {
		return conversation.Message{}, wrapErr("delete message: read it", err)
	}
	if len(rows) == 0 {
		return conversation.Message{}, fmt.Errorf("sqlstore: delete message: %w", ports.ErrNotFound)
	}
	m := rows[0].toMessage()
	if rows[0].ClaimedBy != "" && rows[0].ClaimUntil.After(now) {
		return conversation.Message{}, errBusy("message", m.ID)
	}
	held, err := tx.NewSelect().Model((*messageRow)(nil)).
		Where("cm.tenant_id = ?", scope.Tenant).
		Where("cm.user_id = ?", scope.User).
		Where("cm.conversation_id = ?", m.ConversationID).
		Where("cm.vector_claimed_by IS NOT NULL").
		Where("cm.vector_claim_until > ?", dbTime(now)).
		Exists(ctx)
	if err != nil {
		return conversation.Message{}, wrapErr("delete message: read vector claims", err)
	}
	if held {
		return conversation.Message{}, errBusy("conversation", m.ConversationID)
	}
	return m, nil
}

// deleteMessageRows deletes the message and its embedding, and queues its
// neighbours (around) for new vectors: their context windows held its text.
func deleteMessageRows(ctx context.Context, tx bun.Tx, seq string, around []string, now time.Time) error {
	if _, err := tx.NewRaw("DELETE FROM message_embeddings WHERE id = ?", seq).Exec(ctx); err != nil {
		return wrapErr("delete message embedding", err)
	}
	if _, err := tx.NewRaw("DELETE FROM conversation_messages WHERE id = ?", seq).Exec(ctx); err != nil {
		return wrapErr("delete message", err)
	}
	if len(around) == 0 {
		return nil
	}
	_, err := tx.NewRaw(`UPDATE conversation_messages SET vector_status = 'DIRTY', vector_error = NULL,
			vector_attempts = 0, vector_next_attempt_at = NULL, vector_queued_at = ?
		WHERE id IN (?)`, dbTime(now), bun.List(around)).Exec(ctx)
	return wrapErr("delete message: requeue its neighbours", err)
}

// neighbours returns the arrival ids of up to n messages on each side of m in its
// conversation.
func (s *MessageStore) neighbours(ctx context.Context, tx bun.Tx, m conversation.Message, n int) ([]string, error) {
	if n <= 0 {
		return nil, nil
	}
	var ids []string
	for _, side := range []struct{ cmp, order string }{{"<", "DESC"}, {">", "ASC"}} {
		var got []string
		err := tx.NewRaw(`SELECT id FROM conversation_messages
			WHERE tenant_id = ? AND user_id = ? AND conversation_id = ? AND (created_at, id) `+side.cmp+` (?, ?)
			ORDER BY created_at `+side.order+`, id `+side.order+` LIMIT ?`,
			m.Scope.Tenant, m.Scope.User, m.ConversationID, dbTime(m.CreatedAt), m.Seq, n).Scan(ctx, &got)
		if err != nil && classify(err) != classNotFound {
			return nil, wrapErr("delete message: find its neighbours", err)
		}
		ids = append(ids, got...)
	}
	return ids, nil
}

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

// MessageStore keeps conversation messages in conversation_messages (the
// ports.MessageLog) and hands due ones to extraction workers (claims with a lease; FOR UPDATE SKIP LOCKED on
// PostgreSQL, the single writer on SQLite).
type MessageStore struct {
	db       *DB
	batching conversation.Batching
}

var _ ports.MessageLog = (*MessageStore)(nil)

// NewMessageStore serves the messages of db.
func NewMessageStore(db *DB) *MessageStore { return &MessageStore{db: db} }

// SetBatching bounds the debounce push of Ingest (see conversation.Batching). Set
// it before the store is used.
func (s *MessageStore) SetBatching(b conversation.Batching) {
	s.batching = b
}

// Ingest stores new messages with one multi-row INSERT, checks repeated ids against
// what is stored, and pushes the debounce of the conversations that got new
// messages with one UPDATE, all in one transaction.
func (s *MessageStore) Ingest(ctx context.Context, scope memory.Scope, msgs []conversation.Message) ([]ports.Ingested, error) {
	if len(msgs) == 0 {
		return nil, nil
	}
	var out []ports.Ingested
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var err error
		out, err = s.ingest(ctx, tx, scope, msgs)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (s *MessageStore) ingest(ctx context.Context, tx bun.Tx, scope memory.Scope, msgs []conversation.Message) ([]ports.Ingested, error) {
	if err := s.db.guardWrite(ctx, tx, scope); err != nil {
		return nil, err
	}
	if err := s.db.refuseDeleted(ctx, tx, scope, msgs); err != nil {
		return nil, err
	}
	stored, err := storedMessages(ctx, tx, scope, msgs)
	if err != nil {
		return nil, err
	}
	plan, err := planIngest(scope, msgs, stored)
	if err != nil {
		return nil, err
	}
	if len(plan.rows) > 0 {
		if _, err := tx.NewInsert().Model(&plan.rows).Exec(ctx); err != nil {
			return nil, wrapErr("insert messages", err)
		}
	}
	deadlines, err := s.deadlines(ctx, tx, scope, plan.pushTo)
	if err != nil {
		return nil, err
	}
	if err := pushDebounce(ctx, tx, scope, deadlines, !s.batching.Bounded()); err != nil {
		return nil, err
	}
	for i, in := range plan.out {
		if at, ok := deadlines[in.Message.ConversationID]; ok && in.Created && in.Message.Status == conversation.StatusPending {
			plan.out[i].Message.ProcessAfter = at
		}
	}
	return plan.out, nil
}

// storedMessages are the messages of the scope already stored under the ids of
// msgs, by id.
func storedMessages(ctx context.Context, tx bun.Tx, scope memory.Scope, msgs []conversation.Message) (map[string]conversation.Message, error) {
	ids := make([]string, 0, len(msgs))
	for _, m := range msgs {
		ids = append(ids, m.ID)
	}
	var existing []messageRow
	err := tx.NewSelect().Model(&existing).
		Where("cm.tenant_id = ?", scope.Tenant).
		Where("cm.user_id = ?", scope.User).
		Where("cm.message_id IN (?)", bun.List(ids)).
		Scan(ctx)
	if err != nil {
		return nil, wrapErr("find stored messages", err)
	}
	stored := make(map[string]conversation.Message, len(existing))
	for i := range existing {
		stored[existing[i].MessageID] = existing[i].toMessage()
	}
	return stored, nil
}

// ingestPlan is what an ingest writes: the rows of new messages, the latest
// deadline of each conversation's new PENDING messages, and the answer in the
// input's order.
type ingestPlan struct {
	rows   []messageRow
	pushTo map[string]time.Time
	out    []ports.Ingested
}

// planIngest decides, from what is stored, which messages are new; a repeated id
// must say the same as the stored message (a repeat inside the batch is the same
// message as its first copy).
func planIngest(scope memory.Scope, msgs []conversation.Message, stored map[string]conversation.Message) (ingestPlan, error) {
	plan := ingestPlan{pushTo: map[string]time.Time{}, out: make([]ports.Ingested, len(msgs))}
	for i, m := range msgs {
		if m.Scope != scope {
			return ingestPlan{}, fmt.Errorf("sqlstore: ingest: message %q is for another scope", m.ID)
		}
		if prev, ok := stored[m.ID]; ok {
			if !prev.SameAs(m) {
				return ingestPlan{}, &ports.MessageConflictError{MessageID: m.ID}
			}
			plan.out[i] = ports.Ingested{Message: prev}
			continue
		}
		row := toMessageRow(m)
		stored[m.ID] = row.toMessage()
		plan.rows = append(plan.rows, row)
		plan.out[i] = ports.Ingested{Message: row.toMessage(), Created: true}
		if at := dbTime(m.ProcessAfter); m.Status == conversation.StatusPending && at.After(plan.pushTo[m.ConversationID]) {
			plan.pushTo[m.ConversationID] = at
		}
	}
	return plan, nil
}

// deadlines is when each conversation that got new user messages becomes due:
// the latest debounce among its new messages, bounded by the batching limits,
// which count the conversation's unclaimed PENDING messages in the transaction.
func (s *MessageStore) deadlines(ctx context.Context, tx bun.Tx, scope memory.Scope, debounced map[string]time.Time) (map[string]time.Time, error) {
	if len(debounced) == 0 || !s.batching.Bounded() {
		return debounced, nil
	}
	convs := make([]string, 0, len(debounced))
	for c := range debounced {
		convs = append(convs, c)
	}
	var waiting []struct {
		ConversationID string    `bun:"conversation_id"`
		N              int       `bun:"n"`
		Oldest         time.Time `bun:"oldest"`
		Newest         time.Time `bun:"newest"`
	}
	err := tx.NewSelect().Model((*messageRow)(nil)).
		ColumnExpr("cm.conversation_id, count(*) AS n, min(cm.received_at) AS oldest, max(cm.received_at) AS newest").
		Where("cm.tenant_id = ?", scope.Tenant).
		Where("cm.user_id = ?", scope.User).
		Where("cm.conversation_id IN (?)", bun.List(convs)).
		// Literal conditions, so SQLite and PostgreSQL read the partial index of
		// waiting messages (migration 20261201070001).
		Where("cm.status = 'PENDING'").
		Where("cm.claimed_by IS NULL").
		GroupExpr("cm.conversation_id").
		Scan(ctx, &waiting)
	if err != nil {
		return nil, wrapErr("count waiting messages", err)
	}
	out := make(map[string]time.Time, len(debounced))
	for c, at := range debounced {
		out[c] = at
	}
	for _, w := range waiting {
		out[w.ConversationID] = dbTime(s.batching.Due(conversation.Waiting{Count: w.N,
			OldestReceived: dbTime(w.Oldest), NewestReceived: dbTime(w.Newest), Debounced: debounced[w.ConversationID]}))
	}
	return out, nil
}

// pushDebounce moves the unclaimed PENDING messages of each conversation to its
// deadline. Without batching limits deadlines only ever move later, and only
// later ones are written; with limits the conversation's deadline is set, earlier
// or later, so its messages stay due together.
func pushDebounce(ctx context.Context, tx bun.Tx, scope memory.Scope, deadlines map[string]time.Time, laterOnly bool) error {
	// Group conversations by the new deadline; a batch has one receive time, so
	// this is almost always one UPDATE.
	byDeadline := map[time.Time][]string{}
	for conv, at := range deadlines {
		byDeadline[at] = append(byDeadline[at], conv)
	}
	for at, convs := range byDeadline {
		q := tx.NewUpdate().Model((*messageRow)(nil)).
			Set("process_after = ?", at).
			Where("tenant_id = ?", scope.Tenant).
			Where("user_id = ?", scope.User).
			Where("conversation_id IN (?)", bun.List(convs)).
			// COALESCE keeps SQLite on the conversation index: the status
			// index would visit every PENDING message of every user.
			Where("COALESCE(status, '') = ?", string(conversation.StatusPending)).
			Where("claimed_by IS NULL")
		if laterOnly {
			q = q.Where("process_after < ?", at)
		} else {
			q = q.Where("process_after <> ?", at)
		}
		if _, err := q.Exec(ctx); err != nil {
			return wrapErr("push debounce", err)
		}
	}
	return nil
}

// Message returns one message of the scope.
func (s *MessageStore) Message(ctx context.Context, scope memory.Scope, messageID string) (conversation.Message, error) {
	var row messageRow
	q := s.db.bun.NewSelect().Model(&row).
		Where("cm.tenant_id = ?", scope.Tenant).
		Where("cm.user_id = ?", scope.User).
		Where("cm.message_id = ?", messageID)
	if err := visible(q, scope).Scan(ctx); err != nil {
		return conversation.Message{}, wrapErr("get message", err)
	}
	return row.toMessage(), nil
}

// ConversationBefore returns the limit most recent messages before m, oldest first.
func (s *MessageStore) ConversationBefore(ctx context.Context, m conversation.Message, limit int) ([]conversation.Message, error) {
	if limit <= 0 {
		return nil, nil
	}
	var rows []messageRow
	created := dbTime(m.CreatedAt)
	err := s.db.bun.NewSelect().Model(&rows).
		Where("cm.tenant_id = ?", m.Scope.Tenant).
		Where("cm.user_id = ?", m.Scope.User).
		Where("cm.conversation_id = ?", m.ConversationID).
		WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("cm.created_at < ?", created).
				WhereGroup(" OR ", func(q *bun.SelectQuery) *bun.SelectQuery {
					return q.Where("cm.created_at = ?", created).Where("cm.id < ?", m.Seq)
				})
		}).
		OrderExpr("cm.created_at DESC, cm.id DESC").
		Limit(int64(limit)).
		Scan(ctx)
	if err != nil {
		return nil, wrapErr("conversation context", err)
	}
	out := make([]conversation.Message, len(rows))
	for i := range rows {
		out[len(rows)-1-i] = rows[i].toMessage()
	}
	return out, nil
}

// ClaimDue claims whole conversations' due messages in one UPDATE … RETURNING. Its
// subquery reads the earliest due rows through the (status, process_after) index
// (a window of them, so a large backlog is not grouped whole on every claim),
// skips users who have a conversation under a live claim, and keeps the earliest
// conversation of each remaining user; the chosen conversations' rows are found
// through the conversation index. On PostgreSQL claims run one at a time (a
// transaction-scoped advisory lock, held for the milliseconds of the UPDATE), so a
// claim sees every claim committed before it and two workers never take two
// conversations of one user; SQLite has a single writer anyway.
func (s *MessageStore) ClaimDue(ctx context.Context, c ports.Claim) ([]conversation.Message, error) {
	if c.Worker == "" || c.Lease <= 0 {
		return nil, fmt.Errorf("sqlstore: claim messages: a worker and a positive lease are required")
	}
	limit := max(c.MaxConversations, 1)
	query := claimQuery(s.db.dialect, c.Recover, columnsOf(s.db, (*messageRow)(nil)))
	var rows []messageRow
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		rows = rows[:0]
		if s.db.dialect == DialectPostgres {
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?)", claimLockKey); err != nil {
				return err
			}
		}
		return tx.NewRaw(query, dbTime(c.Now), c.Worker, dbTime(c.Now.Add(c.Lease)), limit, max(limit*32, 256)).Scan(ctx, &rows)
	})
	if err != nil && classify(err) != classNotFound {
		return nil, wrapErr("claim messages", err)
	}
	out := make([]conversation.Message, len(rows))
	for i := range rows {
		out[i] = rows[i].toMessage()
	}
	sortConversations(out)
	return out, nil
}

// claimLockKey is the advisory lock that serialises message claims on PostgreSQL.
const claimLockKey = 0x656e6772616d01 // "engram" + 1

// claimQuery is ClaimDue's statement. Arguments: ?0 now, ?1 worker, ?2 claim
// until, ?3 conversations, ?4 due rows looked at; returning lists the columns.
func claimQuery(dialect Dialect, recover bool, returning string) string {
	// The rows of the chosen conversations (alias c) must be found through the
	// conversation index; COALESCE on status keeps SQLite's planner from
	// preferring the status index there, which would scan every due row once per
	// conversation.
	due := func(alias string) string {
		status := alias + ".status"
		if alias == "c" {
			status = "COALESCE(c.status, '')"
		}
		if recover {
			return strings.NewReplacer("{status}", status, "{a}", alias).Replace(`{status} IN ('PENDING', 'FAILED')
				AND {a}.process_after <= ?0 AND ({a}.claim_until IS NULL OR {a}.claim_until <= ?0)`)
		}
		return strings.NewReplacer("{status}", status, "{a}", alias).Replace(
			`{status} = 'PENDING' AND {a}.claimed_by IS NULL AND {a}.process_after <= ?0`)
	}
	lock := ""
	if dialect == DialectPostgres {
		lock = "FOR UPDATE SKIP LOCKED"
	}
	return `UPDATE conversation_messages SET claimed_by = ?1, claim_until = ?2
		WHERE id IN (
			SELECT c.id FROM conversation_messages AS c
			WHERE (c.tenant_id, c.user_id, c.conversation_id) IN (
				SELECT tenant_id, user_id, conversation_id FROM (
					SELECT w.tenant_id, w.user_id, w.conversation_id, MIN(w.process_after) AS first_due,
						ROW_NUMBER() OVER (PARTITION BY w.tenant_id, w.user_id
							ORDER BY MIN(w.process_after), w.conversation_id) AS nth
					FROM (
						SELECT d.tenant_id, d.user_id, d.conversation_id, d.process_after
						FROM conversation_messages AS d
						WHERE ` + due("d") + ` AND ` + notErasing("d") + `
						AND NOT EXISTS (SELECT 1 FROM conversation_messages AS h
							WHERE h.tenant_id = d.tenant_id AND h.user_id = d.user_id
							AND h.claimed_by IS NOT NULL AND h.claim_until > ?0)
						ORDER BY d.process_after LIMIT ?4) AS w
					GROUP BY w.tenant_id, w.user_id, w.conversation_id) AS per_user
				WHERE nth = 1
				ORDER BY first_due, tenant_id, user_id LIMIT ?3)
			AND ` + due("c") + `
			` + lock + `)
		RETURNING ` + returning
}

// sortConversations groups messages by conversation (first come first) and orders
// each conversation's messages.
func sortConversations(msgs []conversation.Message) {
	slices.SortStableFunc(msgs, func(a, b conversation.Message) int {
		if c := strings.Compare(a.Scope.Tenant, b.Scope.Tenant); c != 0 {
			return c
		}
		if c := strings.Compare(a.Scope.User, b.Scope.User); c != 0 {
			return c
		}
		if c := strings.Compare(a.ConversationID, b.ConversationID); c != 0 {
			return c
		}
		switch {
		case conversation.Before(a, b):
			return -1
		case conversation.Before(b, a):
			return 1
		}
		return 0
	})
}

// Finish stores each outcome only while the worker still holds the message.
func (s *MessageStore) Finish(ctx context.Context, worker string, msgs []conversation.Message) (int, error) {
	stored := 0
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		stored = 0
		for _, m := range msgs {
			row := toMessageRow(m)
			row.ClaimedBy, row.ClaimUntil = "", time.Time{}
			res, err := tx.NewUpdate().Model(&row).
				Column("status", "skip_reason", "attempts", "error", "process_after", "processed_at", "claimed_by", "claim_until").
				Where("id = ?", m.Seq).
				Where("claimed_by = ?", worker).
				Exec(ctx)
			if err != nil {
				return wrapErr("finish message", err)
			}
			if n, err := res.RowsAffected(); err == nil {
				stored += int(n)
			}
		}
		return nil
	})
	return stored, err
}

// Release clears the worker's claims on the messages.
func (s *MessageStore) Release(ctx context.Context, worker string, msgs []conversation.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	seqs := make([]string, len(msgs))
	for i, m := range msgs {
		seqs[i] = m.Seq
	}
	return s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewUpdate().Model((*messageRow)(nil)).
			Set("claimed_by = NULL").
			Set("claim_until = NULL").
			Where("id IN (?)", bun.List(seqs)).
			Where("claimed_by = ?", worker).
			Exec(ctx)
		return wrapErr("release messages", err)
	})
}

// CausedEvents reads memory_events by their source message.
func (s *MessageStore) CausedEvents(ctx context.Context, scope memory.Scope, messageID string) ([]memory.Event, error) {
	return s.db.eventsWhere(ctx, scope, "message_id", "events of message", messageID)
}

// Stats counts messages by status (an index-only scan of the status index)
// and finds the oldest PENDING one.
func (s *MessageStore) Stats(ctx context.Context, _ time.Time) (ports.MessageStats, error) {
	var counts []struct {
		Status string `bun:"status"`
		N      int64  `bun:"n"`
	}
	err := s.db.bun.NewSelect().Model((*messageRow)(nil)).
		ColumnExpr("cm.status AS status, count(*) AS n").
		GroupExpr("cm.status").
		Scan(ctx, &counts)
	if err != nil {
		return ports.MessageStats{}, wrapErr("message stats", err)
	}
	st := ports.MessageStats{ByStatus: map[conversation.Status]int64{}}
	for _, s := range conversation.Statuses {
		st.ByStatus[s] = 0
	}
	for _, c := range counts {
		st.ByStatus[conversation.Status(c.Status)] = c.N
	}
	if st.ByStatus[conversation.StatusPending] > 0 {
		var oldest messageRow
		err := s.db.bun.NewSelect().Model(&oldest).Column("received_at").
			Where("cm.status = ?", string(conversation.StatusPending)).
			OrderExpr("cm.received_at ASC").Limit(1).Scan(ctx)
		if err != nil && classify(err) != classNotFound {
			return ports.MessageStats{}, wrapErr("oldest pending message", err)
		}
		st.OldestPending = dbTime(oldest.ReceivedAt)
	}
	return st, nil
}

// messageRow is one row of conversation_messages.
type messageRow struct {
	bun.BaseModel `bun:"table:conversation_messages,alias:cm"`

	ID             string    `bun:"id,pk"`
	TenantID       string    `bun:"tenant_id"`
	UserID         string    `bun:"user_id"`
	MessageID      string    `bun:"message_id"`
	ConversationID string    `bun:"conversation_id"`
	Role           string    `bun:"role"`
	Name           string    `bun:"name,nullzero"`
	Content        string    `bun:"content"`
	CreatedAt      time.Time `bun:"created_at"`
	ReceivedAt     time.Time `bun:"received_at"`

	Status       string    `bun:"status"`
	SkipReason   string    `bun:"skip_reason,nullzero"`
	Attempts     int       `bun:"attempts"`
	Error        string    `bun:"error,nullzero"`
	ProcessAfter time.Time `bun:"process_after,nullzero"`
	ProcessedAt  time.Time `bun:"processed_at,nullzero"`
	ClaimedBy    string    `bun:"claimed_by,nullzero"`
	ClaimUntil   time.Time `bun:"claim_until,nullzero"`

	AgentID  string `bun:"agent_id,nullzero"`
	AppID    string `bun:"app_id,nullzero"`
	RunID    string `bun:"run_id,nullzero"`
	Metadata string `bun:"metadata,nullzero"` // compact JSON object (memory.Metadata)
}

func toMessageRow(m conversation.Message) messageRow {
	return messageRow{
		ID:             m.Seq,
		TenantID:       m.Scope.Tenant,
		UserID:         m.Scope.User,
		MessageID:      m.ID,
		ConversationID: m.ConversationID,
		Role:           string(m.Role),
		Name:           m.Name,
		Content:        m.Content,
		CreatedAt:      dbTime(m.CreatedAt),
		ReceivedAt:     dbTime(m.ReceivedAt),
		Status:         string(m.Status),
		SkipReason:     m.SkipReason,
		Attempts:       m.Attempts,
		Error:          m.Error,
		ProcessAfter:   dbTime(m.ProcessAfter),
		ProcessedAt:    dbTime(m.ProcessedAt),
		AgentID:        m.Attributes.AgentID,
		AppID:          m.Attributes.AppID,
		RunID:          m.Attributes.RunID,
		Metadata:       m.Attributes.Metadata.JSON(),
	}
}

func (r *messageRow) toMessage() conversation.Message {
	return conversation.Message{
		ID:             r.MessageID,
		Seq:            r.ID,
		Scope:          memory.Scope{Tenant: r.TenantID, User: r.UserID},
		ConversationID: r.ConversationID,
		Role:           conversation.Role(r.Role),
		Name:           r.Name,
		Content:        r.Content,
		CreatedAt:      dbTime(r.CreatedAt),
		ReceivedAt:     dbTime(r.ReceivedAt),
		Status:         conversation.Status(r.Status),
		SkipReason:     r.SkipReason,
		Attempts:       r.Attempts,
		Error:          r.Error,
		ProcessAfter:   dbTime(r.ProcessAfter),
		ProcessedAt:    dbTime(r.ProcessedAt),
		Attributes: memory.Attributes{AgentID: r.AgentID, AppID: r.AppID, RunID: r.RunID,
			Metadata: memory.RestoreMetadata(r.Metadata)},
	}
}

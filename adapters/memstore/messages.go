package memstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
)

// MessageStore is an in-memory message store (ports.MessageLog, the extraction queue). Its events come from the
// MemoryStore it was built with, as the SQL store reads memory_events.
type MessageStore struct {
	memories *MemoryStore
	guard    ports.ErasureGuard // nil: no erasures (GuardErasures)
	vectors  *VectorSyncStore   // the vector bookkeeping built over this store, if any
	batching conversation.Batching

	mu     sync.Mutex
	bySeq  map[string]*storedMessage
	byID   map[messageKey]*storedMessage
	convos map[conversationKey][]*storedMessage // in conversation order
}

type storedMessage struct {
	msg        conversation.Message
	claimedBy  string
	claimUntil time.Time
}

type messageKey struct{ tenant, user, id string }

type conversationKey struct{ tenant, user, conversation string }

var _ ports.MessageLog = (*MessageStore)(nil)

// NewMessageStore returns an empty store whose CausedEvents reads memories' events.
func NewMessageStore(memories *MemoryStore) *MessageStore {
	return &MessageStore{
		memories: memories,
		bySeq:    map[string]*storedMessage{},
		byID:     map[messageKey]*storedMessage{},
		convos:   map[conversationKey][]*storedMessage{},
	}
}

// SetBatching bounds the debounce push of Ingest (see conversation.Batching). Set
// it before the store is used.
func (s *MessageStore) SetBatching(b conversation.Batching) {
	s.mu.Lock()
	s.batching = b
	s.mu.Unlock()
}

func convoOf(m conversation.Message) conversationKey {
	return conversationKey{tenant: m.Scope.Tenant, user: m.Scope.User, conversation: m.ConversationID}
}

// Ingest stores the new messages and pushes the debounce, atomically.
func (s *MessageStore) Ingest(ctx context.Context, scope memory.Scope, msgs []conversation.Message) ([]ports.Ingested, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("memstore: ingest: %w: %w", ports.ErrUnavailable, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := guardWrite(ctx, s.guard, scope); err != nil {
		return nil, err
	}
	out := make([]ports.Ingested, len(msgs))
	pending := map[messageKey]conversation.Message{}
	var fresh []conversation.Message
	for i, m := range msgs {
		if m.Scope != scope {
			return nil, fmt.Errorf("memstore: ingest: message %q is for another scope", m.ID)
		}
		k := messageKey{scope.Tenant, scope.User, m.ID}
		prev, ok := pending[k]
		if !ok {
			if st, stored := s.byID[k]; stored {
				prev, ok = st.msg, true
			}
		}
		if ok {
			if !prev.SameAs(m) {
				return nil, &ports.MessageConflictError{MessageID: m.ID}
			}
			out[i] = ports.Ingested{Message: prev}
			continue
		}
		if _, taken := s.bySeq[m.Seq]; taken {
			return nil, fmt.Errorf("memstore: ingest: seq %q is taken: %w", m.Seq, ports.ErrConflict)
		}
		m = normMessage(m)
		pending[k] = m
		fresh = append(fresh, m)
		out[i] = ports.Ingested{Message: m, Created: true}
	}
	pushTo := map[conversationKey]time.Time{}
	for _, m := range fresh {
		st := &storedMessage{msg: m}
		s.bySeq[m.Seq] = st
		s.byID[messageKey{scope.Tenant, scope.User, m.ID}] = st
		ck := convoOf(m)
		list := append(s.convos[ck], st)
		slices.SortStableFunc(list, func(a, b *storedMessage) int { return order(a.msg, b.msg) })
		s.convos[ck] = list
		if m.Status == conversation.StatusPending && m.ProcessAfter.After(pushTo[ck]) {
			pushTo[ck] = m.ProcessAfter
		}
	}
	for ck, debounced := range pushTo {
		at := s.deadline(ck, debounced)
		for _, st := range s.convos[ck] {
			if st.msg.Status != conversation.StatusPending || st.claimedBy != "" {
				continue
			}
			if s.batching.Bounded() || st.msg.ProcessAfter.Before(at) {
				st.msg.ProcessAfter = at
			}
		}
		for i := range out {
			if out[i].Created && convoOf(out[i].Message) == ck && out[i].Message.Status == conversation.StatusPending {
				out[i].Message.ProcessAfter = at
			}
		}
	}
	return out, nil
}

// deadline is when the conversation's waiting messages are due (see
// ports.MessageLog.Ingest); the caller holds mu.
func (s *MessageStore) deadline(ck conversationKey, debounced time.Time) time.Time {
	if !s.batching.Bounded() {
		return debounced
	}
	w := conversation.Waiting{Debounced: debounced}
	for _, st := range s.convos[ck] {
		if st.msg.Status != conversation.StatusPending || st.claimedBy != "" {
			continue
		}
		w.Count++
		if r := st.msg.ReceivedAt; w.OldestReceived.IsZero() || r.Before(w.OldestReceived) {
			w.OldestReceived = r
		}
		if r := st.msg.ReceivedAt; r.After(w.NewestReceived) {
			w.NewestReceived = r
		}
	}
	return normTime(s.batching.Due(w))
}

func order(a, b conversation.Message) int {
	switch {
	case conversation.Before(a, b):
		return -1
	case conversation.Before(b, a):
		return 1
	}
	return 0
}

// Message returns one message of the scope.
func (s *MessageStore) Message(ctx context.Context, scope memory.Scope, messageID string) (conversation.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.byID[messageKey{scope.Tenant, scope.User, messageID}]
	if !ok || hidden(ctx, s.guard, scope) {
		return conversation.Message{}, fmt.Errorf("memstore: get message: %w", ports.ErrNotFound)
	}
	return st.msg, nil
}

// ConversationBefore returns the limit most recent messages before m, oldest first.
func (s *MessageStore) ConversationBefore(_ context.Context, m conversation.Message, limit int) ([]conversation.Message, error) {
	m = normMessage(m)
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []conversation.Message
	for _, st := range s.convos[convoOf(m)] {
		if conversation.Before(st.msg, m) {
			out = append(out, st.msg)
		}
	}
	if len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out, nil
}

// ClaimDue claims whole conversations' due messages, earliest deadline first.
func (s *MessageStore) ClaimDue(ctx context.Context, c ports.Claim) ([]conversation.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("memstore: claim messages: %w: %w", ports.ErrUnavailable, err)
	}
	if c.Worker == "" || c.Lease <= 0 {
		return nil, fmt.Errorf("memstore: claim messages: a worker and a positive lease are required")
	}
	now := normTime(c.Now)
	due := func(st *storedMessage) bool {
		m := st.msg
		if m.ProcessAfter.IsZero() || m.ProcessAfter.After(now) {
			return false
		}
		if c.Recover {
			return (m.Status == conversation.StatusPending || m.Status == conversation.StatusFailed) &&
				(st.claimUntil.IsZero() || !st.claimUntil.After(now))
		}
		return m.Status == conversation.StatusPending && st.claimedBy == ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	chosen := s.chooseConversations(now, max(c.MaxConversations, 1), func(st *storedMessage) bool {
		return due(st) && !hidden(ctx, s.guard, st.msg.Scope)
	})
	var out []conversation.Message
	until := normTime(c.Now.Add(c.Lease))
	for _, ck := range chosen {
		for _, st := range s.convos[ck] {
			if due(st) {
				st.claimedBy, st.claimUntil = c.Worker, until
				out = append(out, st.msg)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b conversation.Message) int {
		if c := strings.Compare(a.Scope.Tenant+"\x00"+a.Scope.User+"\x00"+a.ConversationID,
			b.Scope.Tenant+"\x00"+b.Scope.User+"\x00"+b.ConversationID); c != 0 {
			return c
		}
		return order(a, b)
	})
	return out, nil
}

// chooseConversations picks up to limit conversations with due messages, the
// earliest deadline first, at most one per user and none of a user who has a
// conversation under a live claim (as the SQL store does). The caller holds mu.
func (s *MessageStore) chooseConversations(now time.Time, limit int, due func(*storedMessage) bool) []conversationKey {
	type userKey struct{ tenant, user string }
	busy := map[userKey]bool{}
	first := map[conversationKey]*storedMessage{}
	for _, st := range s.bySeq {
		u := userKey{st.msg.Scope.Tenant, st.msg.Scope.User}
		if st.claimedBy != "" && st.claimUntil.After(now) {
			busy[u] = true
		}
		if !due(st) {
			continue
		}
		ck := convoOf(st.msg)
		if f, ok := first[ck]; !ok || earlierDue(st, f) {
			first[ck] = st
		}
	}
	candidates := make([]*storedMessage, 0, len(first))
	for ck, st := range first {
		if !busy[userKey{ck.tenant, ck.user}] {
			candidates = append(candidates, st)
		}
	}
	slices.SortFunc(candidates, func(a, b *storedMessage) int {
		if earlierDue(a, b) {
			return -1
		}
		if earlierDue(b, a) {
			return 1
		}
		return 0
	})
	var chosen []conversationKey
	taken := map[userKey]bool{}
	for _, st := range candidates {
		u := userKey{st.msg.Scope.Tenant, st.msg.Scope.User}
		if taken[u] || len(chosen) == limit {
			continue
		}
		taken[u] = true
		chosen = append(chosen, convoOf(st.msg))
	}
	return chosen
}

// earlierDue orders due messages by deadline, then by arrival.
func earlierDue(a, b *storedMessage) bool {
	if c := a.msg.ProcessAfter.Compare(b.msg.ProcessAfter); c != 0 {
		return c < 0
	}
	return a.msg.Seq < b.msg.Seq
}

// Finish stores each outcome only while the worker still holds the message.
func (s *MessageStore) Finish(ctx context.Context, worker string, msgs []conversation.Message) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("memstore: finish messages: %w: %w", ports.ErrUnavailable, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, m := range msgs {
		st, ok := s.bySeq[m.Seq]
		if !ok || st.claimedBy != worker {
			continue
		}
		m = normMessage(m)
		st.msg.Status, st.msg.SkipReason, st.msg.Attempts, st.msg.Error = m.Status, m.SkipReason, m.Attempts, m.Error
		st.msg.ProcessAfter, st.msg.ProcessedAt = m.ProcessAfter, m.ProcessedAt
		st.claimedBy, st.claimUntil = "", time.Time{}
		n++
	}
	return n, nil
}

// Release clears the worker's claims.
func (s *MessageStore) Release(_ context.Context, worker string, msgs []conversation.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range msgs {
		if st, ok := s.bySeq[m.Seq]; ok && st.claimedBy == worker {
			st.claimedBy, st.claimUntil = "", time.Time{}
		}
	}
	return nil
}

// CausedEvents returns the memory events whose source is the message, by id.
func (s *MessageStore) CausedEvents(ctx context.Context, scope memory.Scope, messageID string) ([]memory.Event, error) {
	if s.memories == nil || hidden(ctx, s.guard, scope) {
		return nil, nil
	}
	return s.memories.eventsOfMessage(scope, messageID), nil
}

// eventsOfMessage is the memory store's side of CausedEvents.
func (s *MemoryStore) eventsOfMessage(scope memory.Scope, messageID string) []memory.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []memory.Event
	for _, e := range s.events {
		if e.Scope == scope && e.Source.MessageID == messageID {
			out = append(out, copyEvent(e))
		}
	}
	slices.SortFunc(out, func(a, b memory.Event) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// Stats counts messages by status.
func (s *MessageStore) Stats(_ context.Context, _ time.Time) (ports.MessageStats, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := ports.MessageStats{ByStatus: map[conversation.Status]int64{}}
	for _, status := range conversation.Statuses {
		st.ByStatus[status] = 0
	}
	for _, m := range s.bySeq {
		st.ByStatus[m.msg.Status]++
		if m.msg.Status == conversation.StatusPending && (st.OldestPending.IsZero() || m.msg.ReceivedAt.Before(st.OldestPending)) {
			st.OldestPending = m.msg.ReceivedAt
		}
	}
	return st, nil
}

// normMessage keeps what SQL keeps: UTC, microseconds.
func normMessage(m conversation.Message) conversation.Message {
	m.CreatedAt = normTime(m.CreatedAt)
	m.ReceivedAt = normTime(m.ReceivedAt)
	m.ProcessAfter = normTime(m.ProcessAfter)
	m.ProcessedAt = normTime(m.ProcessedAt)
	return m
}

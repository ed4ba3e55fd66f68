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

// VectorSyncStore is an in-memory ports.VectorQueue over a MemoryStore and a
// MessageStore (either may be nil: nothing of that kind is ever due). The claim and
// retry bookkeeping that SQL keeps in extra columns lives in side tables here; a
// message with no entry is DIRTY, as a freshly inserted row is.
type VectorSyncStore struct {
	memories *MemoryStore
	messages *MessageStore

	mu  sync.Mutex
	mem map[string]*vectorClaimState   // by memory id
	msg map[string]*messageVectorState // by message seq
}

type vectorClaimState struct {
	claimedBy   string
	claimUntil  time.Time
	attempts    int
	nextAttempt time.Time
	queuedAt    time.Time
}

type messageVectorState struct {
	vectorClaimState
	status    memory.VectorStatus
	err       string
	model     string
	textHash  string
	embedding []float32
	syncedAt  time.Time
}

var (
	_ ports.VectorQueue    = (*VectorSyncStore)(nil)
	_ ports.VectorRequeuer = (*VectorSyncStore)(nil)
)

// NewVectorSyncStore serves the indexer from the two stores.
func NewVectorSyncStore(memories *MemoryStore, messages *MessageStore) *VectorSyncStore {
	s := &VectorSyncStore{memories: memories, messages: messages,
		mem: map[string]*vectorClaimState{}, msg: map[string]*messageVectorState{}}
	// Purges of the two stores drop the bookkeeping of what they delete.
	if memories != nil {
		memories.vectors = s
	}
	if messages != nil {
		messages.vectors = s
	}
	return s
}

func (c *vectorClaimState) claimable(now time.Time) bool {
	return c.claimedBy == "" || !c.claimUntil.After(now)
}

func (c *vectorClaimState) release() { c.claimedBy, c.claimUntil = "", time.Time{} }

func checkClaim(ctx context.Context, what string, c ports.VectorClaim) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memstore: claim %s: %w: %w", what, ports.ErrUnavailable, err)
	}
	if c.Worker == "" || c.Lease <= 0 {
		return fmt.Errorf("memstore: claim %s: a worker and a positive lease are required", what)
	}
	return nil
}

func laterOf(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// ClaimMemories claims due memories, oldest change first.
func (s *VectorSyncStore) ClaimMemories(ctx context.Context, c ports.VectorClaim) ([]ports.ClaimedMemory, error) {
	if err := checkClaim(ctx, "memory vectors", c); err != nil {
		return nil, err
	}
	if s.memories == nil {
		return nil, nil
	}
	now := normTime(c.Now)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.memories.mu.Lock()
	defer s.memories.mu.Unlock()
	var due []memory.State
	for _, st := range s.memories.memories {
		if hidden(ctx, s.memories.guard, st.Scope) {
			continue // being erased: the purge must not wait for new claims
		}
		side := s.mem[st.ID]
		if side == nil {
			side = &vectorClaimState{}
		}
		switch {
		case !side.claimable(now):
		case st.Vector.Status == memory.VectorDirty:
			due = append(due, st)
		case st.Vector.Status == memory.VectorFailed && !side.nextAttempt.After(now):
			due = append(due, st)
		}
	}
	slices.SortFunc(due, func(a, b memory.State) int {
		if c := a.UpdatedAt.Compare(b.UpdatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	due = due[:min(len(due), max(c.Limit, 1))]
	out := make([]ports.ClaimedMemory, len(due))
	until := normTime(c.Now.Add(c.Lease))
	for i, st := range due {
		side := s.mem[st.ID]
		if side == nil {
			side = &vectorClaimState{}
			s.mem[st.ID] = side
		}
		side.claimedBy, side.claimUntil = c.Worker, until
		out[i] = ports.ClaimedMemory{Memory: memory.Restore(st), Attempts: side.attempts, DirtySince: laterOf(st.UpdatedAt, side.queuedAt)}
	}
	return out, nil
}

// FinishMemories stores the outcomes of memories still at the claimed version
// and claimed by worker.
func (s *VectorSyncStore) FinishMemories(ctx context.Context, worker string, outcomes []ports.MemoryVectorOutcome) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("memstore: finish memory vectors: %w: %w", ports.ErrUnavailable, err)
	}
	if s.memories == nil {
		return 0, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.memories.mu.Lock()
	defer s.memories.mu.Unlock()
	stored := 0
	for _, o := range outcomes {
		side := s.mem[o.ID]
		if side == nil || side.claimedBy != worker {
			continue
		}
		side.release()
		k, ok := s.memories.memoryIDs[o.ID]
		if !ok {
			continue
		}
		st := s.memories.memories[k]
		if st.Version != o.Version {
			continue // edited meanwhile: it stays DIRTY
		}
		st.Vector = o.Vector
		st.Vector.SyncedAt = normTime(st.Vector.SyncedAt)
		s.memories.memories[k] = st
		if o.Vector.Status == memory.VectorFailed {
			side.attempts, side.nextAttempt = o.Attempts, normTime(o.NextAttempt)
		} else {
			side.attempts, side.nextAttempt = 0, time.Time{}
		}
		stored++
	}
	return stored, nil
}

func (s *VectorSyncStore) messageState(seq string) *messageVectorState {
	st := s.msg[seq]
	if st == nil {
		st = &messageVectorState{status: memory.VectorDirty}
		s.msg[seq] = st
	}
	return st
}

func (s *VectorSyncStore) messageVector(sm *storedMessage) ports.MessageVector {
	st := s.messageState(sm.msg.Seq)
	return ports.MessageVector{
		Message: sm.msg, Status: st.status, Model: st.model, TextHash: st.textHash,
		Embedding: slices.Clone(st.embedding), Attempts: st.attempts,
		DirtySince: laterOf(sm.msg.ReceivedAt, st.queuedAt),
	}
}

// ClaimMessages claims the due messages of whole conversations, earliest
// arrival first, skipping conversations another worker holds.
func (s *VectorSyncStore) ClaimMessages(ctx context.Context, c ports.VectorClaim) ([]ports.MessageVector, error) {
	if err := checkClaim(ctx, "message vectors", c); err != nil {
		return nil, err
	}
	if s.messages == nil {
		return nil, nil
	}
	now := normTime(c.Now)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.messages.mu.Lock()
	defer s.messages.mu.Unlock()
	due := func(sm *storedMessage) bool {
		st := s.messageState(sm.msg.Seq)
		if !st.claimable(now) {
			return false
		}
		return st.status == memory.VectorDirty || (st.status == memory.VectorFailed && !st.nextAttempt.After(now))
	}
	held := func(ck conversationKey) bool {
		for _, sm := range s.messages.convos[ck] {
			st := s.messageState(sm.msg.Seq)
			if st.claimedBy != "" && st.claimedBy != c.Worker && st.claimUntil.After(now) {
				return true
			}
		}
		return false
	}
	var candidates []*storedMessage
	for _, sm := range s.messages.bySeq {
		if due(sm) && !hidden(ctx, s.messages.guard, sm.msg.Scope) {
			candidates = append(candidates, sm)
		}
	}
	slices.SortFunc(candidates, func(a, b *storedMessage) int {
		if c := a.msg.ReceivedAt.Compare(b.msg.ReceivedAt); c != 0 {
			return c
		}
		return strings.Compare(a.msg.Seq, b.msg.Seq)
	})
	// As in SQL: the conversations of the first limit due messages that no one
	// holds; then their due messages, oldest arrival first, limit in all.
	limit := max(c.Limit, 1)
	chosen := map[conversationKey]bool{}
	heldBy := map[conversationKey]bool{}
	n := 0
	for _, sm := range candidates {
		ck := convoOf(sm.msg)
		if _, seen := heldBy[ck]; !seen {
			heldBy[ck] = held(ck)
		}
		if heldBy[ck] {
			continue
		}
		chosen[ck] = true
		if n++; n >= limit {
			break
		}
	}
	var picked []*storedMessage
	for _, sm := range candidates {
		if chosen[convoOf(sm.msg)] && len(picked) < limit {
			picked = append(picked, sm)
		}
	}
	// Grouped by conversation (the one with the oldest message first), each in
	// conversation order.
	rank := map[conversationKey]int{}
	for _, sm := range picked {
		if _, ok := rank[convoOf(sm.msg)]; !ok {
			rank[convoOf(sm.msg)] = len(rank)
		}
	}
	slices.SortStableFunc(picked, func(a, b *storedMessage) int {
		if c := rank[convoOf(a.msg)] - rank[convoOf(b.msg)]; c != 0 {
			return c
		}
		return order(a.msg, b.msg)
	})
	until := normTime(c.Now.Add(c.Lease))
	out := make([]ports.MessageVector, 0, len(picked))
	for _, sm := range picked {
		st := s.messageState(sm.msg.Seq)
		st.claimedBy, st.claimUntil = c.Worker, until
		out = append(out, s.messageVector(sm))
	}
	return out, nil
}

// MessageWindow returns the conversation from margin messages before first to
// margin messages after last.
func (s *VectorSyncStore) MessageWindow(ctx context.Context, first, last conversation.Message, margin int) ([]ports.MessageVector, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("memstore: message window: %w: %w", ports.ErrUnavailable, err)
	}
	if s.messages == nil {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.messages.mu.Lock()
	defer s.messages.mu.Unlock()
	list := s.messages.convos[convoOf(first)]
	from, to := -1, -1
	for i, sm := range list {
		if sm.msg.Seq == first.Seq {
			from = i
		}
		if sm.msg.Seq == last.Seq {
			to = i
		}
	}
	if from < 0 || to < 0 {
		return nil, fmt.Errorf("memstore: message window: %w", ports.ErrNotFound)
	}
	var out []ports.MessageVector
	for _, sm := range list[max(0, from-margin):min(len(list), to+margin+1)] {
		out = append(out, s.messageVector(sm))
	}
	return out, nil
}

// FinishMessages stores the outcomes of messages claimed by worker.
func (s *VectorSyncStore) FinishMessages(ctx context.Context, worker string, outcomes []ports.MessageVectorOutcome) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("memstore: finish message vectors: %w: %w", ports.ErrUnavailable, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	stored := 0
	for _, o := range outcomes {
		st := s.msg[o.Seq]
		if st == nil || st.claimedBy != worker {
			continue
		}
		st.release()
		st.status, st.err = o.Status, o.Error
		if o.Embedding != nil {
			st.model, st.textHash, st.embedding = o.Model, o.TextHash, slices.Clone(o.Embedding)
		}
		if o.Status == memory.VectorFailed {
			st.attempts, st.nextAttempt = o.Attempts, normTime(o.NextAttempt)
		} else {
			st.attempts, st.nextAttempt, st.syncedAt = 0, time.Time{}, normTime(o.SyncedAt)
		}
		stored++
	}
	return stored, nil
}

// Release clears every claim of worker.
func (s *VectorSyncStore) Release(_ context.Context, worker string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.mem {
		if st.claimedBy == worker {
			st.release()
		}
	}
	for _, st := range s.msg {
		if st.claimedBy == worker {
			st.release()
		}
	}
	return nil
}

// Requeue marks the tenant's memories and messages DIRTY. Memories forget
// their text hash, so they are embedded and written again; messages keep their
// embedding (reused when the model is unchanged) and have their vectors rewritten.
func (s *VectorSyncStore) Requeue(ctx context.Context, tenant string, now time.Time) (ports.Requeued, error) {
	if err := ctx.Err(); err != nil {
		return ports.Requeued{}, fmt.Errorf("memstore: requeue vectors: %w: %w", ports.ErrUnavailable, err)
	}
	now = normTime(now)
	var n ports.Requeued
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.memories != nil {
		s.memories.mu.Lock()
		for k, st := range s.memories.memories {
			if tenant != "" && k.tenant != tenant {
				continue
			}
			st.Vector.Status, st.Vector.TextHash, st.Vector.Error = memory.VectorDirty, "", ""
			s.memories.memories[k] = st
			side := s.mem[st.ID]
			if side == nil {
				side = &vectorClaimState{}
				s.mem[st.ID] = side
			}
			*side = vectorClaimState{queuedAt: now}
			n.Memories++
		}
		s.memories.mu.Unlock()
	}
	if s.messages != nil {
		s.messages.mu.Lock()
		for seq, sm := range s.messages.bySeq {
			if tenant != "" && sm.msg.Scope.Tenant != tenant {
				continue
			}
			st := s.messageState(seq)
			st.vectorClaimState = vectorClaimState{queuedAt: now}
			st.status, st.err = memory.VectorDirty, ""
			n.Messages++
		}
		s.messages.mu.Unlock()
	}
	return n, nil
}

// Backlog counts DIRTY and FAILED memories and messages.
func (s *VectorSyncStore) Backlog(context.Context) (ports.VectorBacklog, error) {
	var b ports.VectorBacklog
	oldest := func(t time.Time) {
		if b.OldestDirty.IsZero() || t.Before(b.OldestDirty) {
			b.OldestDirty = t
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.memories != nil {
		s.memories.mu.Lock()
		for _, st := range s.memories.memories {
			var queued time.Time
			if side := s.mem[st.ID]; side != nil {
				queued = side.queuedAt
			}
			switch st.Vector.Status {
			case memory.VectorDirty:
				b.DirtyMemories++
			case memory.VectorFailed:
				b.FailedMemories++
			default:
				continue
			}
			oldest(laterOf(st.UpdatedAt, queued))
		}
		s.memories.mu.Unlock()
	}
	if s.messages != nil {
		s.messages.mu.Lock()
		for _, sm := range s.messages.bySeq {
			st := s.messageState(sm.msg.Seq)
			switch st.status {
			case memory.VectorDirty:
				b.DirtyMessages++
			case memory.VectorFailed:
				b.FailedMessages++
			default:
				continue
			}
			oldest(laterOf(sm.msg.ReceivedAt, st.queuedAt))
		}
		s.messages.mu.Unlock()
	}
	return b, nil
}

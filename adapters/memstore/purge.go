package memstore

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
)

// Purges, listings and user activity, with the semantics of their SQL twins
// (adapters/sqlstore purge.go, listings.go).

var (
	_ ports.MemoryPurger   = (*MemoryStore)(nil)
	_ ports.MessageDeleter = (*MessageStore)(nil)
	_ ports.MessageLister  = (*MessageStore)(nil)
	_ ports.UserActivity   = (*MemoryStore)(nil)
	_ ports.UserActivity   = (*MessageStore)(nil)
	_ ports.UserPurger     = (*UserPurger)(nil)
)

// lockVectors locks the vector bookkeeping built over a store, if any, before the
// store itself (the order its methods use); the returned func unlocks it.
func lockVectors(v *VectorSyncStore) func() {
	if v == nil {
		return func() {}
	}
	v.mu.Lock()
	return v.mu.Unlock
}

func errBusy(what, id string) error {
	return fmt.Errorf("memstore: purge: %s %s is claimed by a worker right now: %w", what, id, ports.ErrConflict)
}

// PurgeMemory deletes the memory and its key's events and stores the purge event.
func (s *MemoryStore) PurgeMemory(ctx context.Context, scope memory.Scope, key memory.Key,
	purge func(current memory.Memory) memory.Event, now time.Time,
) (memory.Memory, error) {
	if err := ctx.Err(); err != nil {
		return memory.Memory{}, fmt.Errorf("memstore: purge memory: %w: %w", ports.ErrUnavailable, err)
	}
	defer lockVectors(s.vectors)()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := guardWrite(ctx, s.guard, scope); err != nil {
		return memory.Memory{}, err
	}
	k := keyOf(scope, key)
	st, ok := s.memories[k]
	if !ok {
		return memory.Memory{}, fmt.Errorf("memstore: purge memory: %w", ports.ErrNotFound)
	}
	current := memory.Restore(st)
	if s.vectors != nil {
		if side := s.vectors.mem[st.ID]; side != nil && side.claimedBy != "" && side.claimUntil.After(now) {
			return memory.Memory{}, errBusy("memory", st.ID)
		}
	}
	ev := purge(current)
	purged := keyOf(scope, memory.PurgedKey(scope, key))
	if ev.Op != memory.OpPurge || ev.Before != nil || ev.After.Content != "" || ev.Scope != scope || ev.Key != purged.key ||
		ev.After.Key != purged.key || ev.MemoryID != st.ID || ev.ID == "" {
		return memory.Memory{}, fmt.Errorf("memstore: purge memory: the event must be a content-free PURGE of memory %s", st.ID)
	}
	if _, taken := s.events[ev.ID]; taken {
		return memory.Memory{}, fmt.Errorf("memstore: insert memory event: id %q is taken: %w", ev.ID, ports.ErrConflict)
	}
	for _, id := range append(s.history[k], s.history[purged]...) {
		delete(s.events, id)
	}
	delete(s.memories, k)
	delete(s.memoryIDs, st.ID)
	if s.vectors != nil {
		delete(s.vectors.mem, st.ID)
	}
	s.events[ev.ID] = normEvent(ev)
	delete(s.history, k)
	s.history[purged] = []string{ev.ID}
	return current, nil
}

// DeleteMessage deletes the message and its vector bookkeeping and marks its
// neighbours DIRTY.
func (s *MessageStore) DeleteMessage(ctx context.Context, scope memory.Scope, messageID string, neighbours int, now time.Time) (conversation.Message, error) {
	if err := ctx.Err(); err != nil {
		return conversation.Message{}, fmt.Errorf("memstore: delete message: %w: %w", ports.ErrUnavailable, err)
	}
	now = normTime(now)
	defer lockVectors(s.vectors)()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := guardWrite(ctx, s.guard, scope); err != nil {
		return conversation.Message{}, err
	}
	sm, ok := s.byID[messageKey{scope.Tenant, scope.User, messageID}]
	if !ok {
		return conversation.Message{}, fmt.Errorf("memstore: delete message: %w", ports.ErrNotFound)
	}
	if sm.claimedBy != "" && sm.claimUntil.After(now) {
		return conversation.Message{}, errBusy("message", messageID)
	}
	ck := convoOf(sm.msg)
	list := s.convos[ck]
	pos := slices.Index(list, sm)
	if s.vectors != nil {
		for _, other := range list {
			if st := s.vectors.msg[other.msg.Seq]; st != nil && st.claimedBy != "" && st.claimUntil.After(now) {
				return conversation.Message{}, errBusy("conversation", sm.msg.ConversationID)
			}
		}
		for i := max(0, pos-neighbours); i <= min(len(list)-1, pos+neighbours); i++ {
			if i == pos || neighbours <= 0 {
				continue
			}
			st := s.vectors.messageState(list[i].msg.Seq)
			st.status, st.err, st.attempts, st.nextAttempt, st.queuedAt = memory.VectorDirty, "", 0, time.Time{}, now
		}
		delete(s.vectors.msg, sm.msg.Seq)
	}
	s.removeLocked(sm)
	return sm.msg, nil
}

// removeLocked forgets a stored message. Callers hold s.mu.
func (s *MessageStore) removeLocked(sm *storedMessage) {
	delete(s.bySeq, sm.msg.Seq)
	delete(s.byID, messageKey{sm.msg.Scope.Tenant, sm.msg.Scope.User, sm.msg.ID})
	ck := convoOf(sm.msg)
	list := slices.DeleteFunc(s.convos[ck], func(x *storedMessage) bool { return x == sm })
	if len(list) == 0 {
		delete(s.convos, ck)
	} else {
		s.convos[ck] = list
	}
}

// ListMessages pages through the user's messages in conversation time order.
func (s *MessageStore) ListMessages(ctx context.Context, scope memory.Scope, q ports.MessageQuery) (ports.MessagePage, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultListLimit
	}
	limit = min(limit, MaxListLimit)
	since, until := normTime(q.Since), normTime(q.Until)
	s.mu.Lock()
	var all []conversation.Message
	for _, sm := range s.bySeq {
		m := sm.msg
		switch {
		case m.Scope != scope:
		case q.ConversationID != "" && m.ConversationID != q.ConversationID:
		case q.Status != "" && m.Status != q.Status:
		case !since.IsZero() && m.CreatedAt.Before(since):
		case !until.IsZero() && !m.CreatedAt.Before(until):
		case q.After != nil && !afterCursor(m, *q.After):
		default:
			all = append(all, m)
		}
	}
	s.mu.Unlock()
	if hidden(ctx, s.guard, scope) {
		return ports.MessagePage{}, nil
	}
	slices.SortFunc(all, func(a, b conversation.Message) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.Seq, b.Seq)
	})
	page := ports.MessagePage{More: len(all) > limit}
	page.Items = all[:min(len(all), limit)]
	return page, nil
}

func afterCursor(m conversation.Message, c ports.MessageCursor) bool {
	at := normTime(c.CreatedAt)
	return m.CreatedAt.After(at) || (m.CreatedAt.Equal(at) && m.Seq > c.Seq)
}

// UsersAfter lists the tenant's users with memories.
func (s *MemoryStore) UsersAfter(_ context.Context, tenant, after string, limit int) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	set := map[string]bool{}
	for k := range s.memories {
		if k.tenant == tenant && k.user > after {
			set[k.user] = true
		}
	}
	return firstUsers(set, limit), nil
}

// Activity counts the users' memories and finds their latest change.
func (s *MemoryStore) Activity(_ context.Context, tenant string, users []string) (map[string]ports.Activity, error) {
	want := wanted(users)
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]ports.Activity{}
	for k, st := range s.memories {
		if k.tenant == tenant && want[k.user] {
			out[k.user] = grow(out[k.user], st.UpdatedAt)
		}
	}
	return out, nil
}

// UsersAfter lists the tenant's users with messages.
func (s *MessageStore) UsersAfter(_ context.Context, tenant, after string, limit int) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	set := map[string]bool{}
	for _, sm := range s.bySeq {
		if sc := sm.msg.Scope; sc.Tenant == tenant && sc.User > after {
			set[sc.User] = true
		}
	}
	return firstUsers(set, limit), nil
}

// Activity counts the users' messages and finds their latest arrival.
func (s *MessageStore) Activity(_ context.Context, tenant string, users []string) (map[string]ports.Activity, error) {
	want := wanted(users)
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]ports.Activity{}
	for _, sm := range s.bySeq {
		if sc := sm.msg.Scope; sc.Tenant == tenant && want[sc.User] {
			out[sc.User] = grow(out[sc.User], sm.msg.ReceivedAt)
		}
	}
	return out, nil
}

func firstUsers(set map[string]bool, limit int) []string {
	users := make([]string, 0, len(set))
	for u := range set {
		users = append(users, u)
	}
	sort.Strings(users)
	return users[:min(len(users), max(limit, 0))]
}

func wanted(users []string) map[string]bool {
	want := make(map[string]bool, len(users))
	for _, u := range users {
		want[u] = true
	}
	return want
}

func grow(a ports.Activity, at time.Time) ports.Activity {
	a.Count++
	if at.After(a.LastActiveAt) {
		a.LastActiveAt = at
	}
	return a
}

// UserPurger deletes everything of a user from the in-memory truth stores, as
// sqlstore.UserPurger does from the tables: messages, memories, their events, and
// the user's jobs but the open erasure.
type UserPurger struct {
	memories *MemoryStore
	messages *MessageStore
	jobs     *JobStore
	clock    ports.Clock
}

// NewUserPurger purges from the stores (messages and jobs may be nil); clock says
// whether a claim is live.
func NewUserPurger(memories *MemoryStore, messages *MessageStore, jobs *JobStore, clock ports.Clock) *UserPurger {
	return &UserPurger{memories: memories, messages: messages, jobs: jobs, clock: clock}
}

// PurgeUser deletes the user's items; a live claim on one of them is ErrConflict.
func (p *UserPurger) PurgeUser(ctx context.Context, scope memory.Scope) (map[string]int64, error) {
	removed := map[string]int64{"memories": 0, "memory_events": 0, "messages": 0, "message_embeddings": 0, "jobs": 0}
	if err := ctx.Err(); err != nil {
		return removed, fmt.Errorf("memstore: purge user: %w: %w", ports.ErrUnavailable, err)
	}
	now := normTime(p.clock.Now())
	if p.messages != nil {
		if err := p.messages.purgeUser(scope, now, removed); err != nil {
			return removed, err
		}
	}
	if err := p.memories.purgeUser(scope, now, removed); err != nil {
		return removed, err
	}
	if p.jobs != nil {
		removed["jobs"] = p.jobs.purgeUser(scope)
	}
	return removed, nil
}

func (s *MessageStore) purgeUser(scope memory.Scope, now time.Time, removed map[string]int64) error {
	defer lockVectors(s.vectors)()
	s.mu.Lock()
	defer s.mu.Unlock()
	var doomed []*storedMessage
	for _, sm := range s.bySeq {
		if sm.msg.Scope != scope {
			continue
		}
		if sm.claimedBy != "" && sm.claimUntil.After(now) {
			return errBusy("message", sm.msg.Seq)
		}
		if s.vectors != nil {
			if st := s.vectors.msg[sm.msg.Seq]; st != nil && st.claimedBy != "" && st.claimUntil.After(now) {
				return errBusy("message", sm.msg.Seq)
			}
		}
		doomed = append(doomed, sm)
	}
	for _, sm := range doomed {
		if s.vectors != nil {
			if st := s.vectors.msg[sm.msg.Seq]; st != nil {
				if st.embedding != nil {
					removed["message_embeddings"]++
				}
				delete(s.vectors.msg, sm.msg.Seq)
			}
		}
		s.removeLocked(sm)
		removed["messages"]++
	}
	return nil
}

func (s *MemoryStore) purgeUser(scope memory.Scope, now time.Time, removed map[string]int64) error {
	defer lockVectors(s.vectors)()
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, st := range s.memories {
		if k.tenant != scope.Tenant || k.user != scope.User || s.vectors == nil {
			continue
		}
		if side := s.vectors.mem[st.ID]; side != nil && side.claimedBy != "" && side.claimUntil.After(now) {
			return errBusy("memory", st.ID)
		}
	}
	for k, st := range s.memories {
		if k.tenant != scope.Tenant || k.user != scope.User {
			continue
		}
		delete(s.memories, k)
		delete(s.memoryIDs, st.ID)
		if s.vectors != nil {
			delete(s.vectors.mem, st.ID)
		}
		removed["memories"]++
	}
	for k, ids := range s.history {
		if k.tenant != scope.Tenant || k.user != scope.User {
			continue
		}
		for _, id := range ids {
			delete(s.events, id)
			removed["memory_events"]++
		}
		delete(s.history, k)
	}
	return nil
}

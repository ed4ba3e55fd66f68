package memstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"engram/domain/memory"
	"engram/domain/session"
	"engram/ports"
)

// SessionStore is an in-memory short-term session store with the semantics of the
// SQL and Redis ones: expiry is measured against its clock when read (and swept by
// SweepExpiredSessions), and every call is atomic under one lock.
type SessionStore struct {
	clock  ports.Clock
	limits session.Limits

	mu       sync.Mutex
	sessions map[session.Ref]*memSession
}

var (
	_ ports.SessionStore    = (*SessionStore)(nil)
	_ ports.SessionFolds    = (*SessionStore)(nil)
	_ ports.SessionExporter = (*SessionStore)(nil)
	_ ports.SessionImporter = (*SessionStore)(nil)
)

type memSession struct {
	meta           session.Meta
	metaUntil      time.Time
	summary        session.Summary
	summaryUntil   time.Time
	messages       []session.Message
	exchanges      []string
	rev            int64
	foldDue        time.Time // zero: not queued
	foldHolder     string
	foldClaimUntil time.Time
}

// NewSessionStore returns an empty store bounded by limits.
func NewSessionStore(clock ports.Clock, limits session.Limits) *SessionStore {
	return &SessionStore{clock: clock, limits: limits.WithDefaults(), sessions: map[session.Ref]*memSession{}}
}

func (s *memSession) metaLive(now time.Time) bool {
	return s.meta.Live() && s.metaUntil.After(now)
}

func (s *memSession) summaryLive(now time.Time) bool {
	return s.summary.Text != "" && s.summaryUntil.After(now)
}

func (s *memSession) exists(now time.Time) bool { return s.metaLive(now) || s.summaryLive(now) }

// view copies what is live of the session; limit <= 0 is every message.
func (s *memSession) view(now time.Time, limit int) session.View {
	var v session.View
	if s.metaLive(now) {
		v.Meta = s.meta
		msgs := s.messages
		if limit > 0 && len(msgs) > limit {
			msgs = msgs[len(msgs)-limit:]
		}
		v.Messages = slices.Clone(msgs)
	}
	if s.summaryLive(now) {
		v.Summary = s.summary
	}
	return v
}

// AppendExchange records the exchange atomically.
func (st *SessionStore) AppendExchange(ctx context.Context, a ports.SessionAppend) (ports.SessionAppended, error) {
	if err := ctx.Err(); err != nil {
		return ports.SessionAppended{}, fmt.Errorf("memstore: append exchange: %w: %w", ports.ErrUnavailable, err)
	}
	x := a.Exchange
	now := st.clock.Now()
	st.mu.Lock()
	defer st.mu.Unlock()
	s := st.sessions[x.Ref]
	if s == nil {
		s = &memSession{}
		st.sessions[x.Ref] = s
	}
	if !s.metaLive(now) {
		s.meta = session.Meta{Ref: x.Ref, CreatedAt: normTime(x.At)}
		s.messages, s.exchanges = nil, nil
	}
	if slices.Contains(s.exchanges, x.ID) {
		return ports.SessionAppended{Meta: s.meta, Duplicate: true, FoldQueued: !s.foldDue.IsZero()}, nil
	}
	for _, m := range x.Messages() {
		s.meta.MessageCount++
		m.Seq, m.At = s.meta.MessageCount, normTime(m.At)
		s.messages = append(s.messages, m)
	}
	if over := len(s.messages) - st.limits.MaxHistory; over > 0 {
		s.messages = slices.Delete(s.messages, 0, over)
	}
	s.exchanges = lastN(append(s.exchanges, x.ID), session.MaxExchangeIDs)
	s.meta.Held, s.meta.LastActiveAt = len(s.messages), normTime(x.At)
	if x.FlowName != "" {
		s.meta.FlowName = x.FlowName
	}
	s.metaUntil = now.Add(st.limits.MessageTTL)
	if s.summaryLive(now) {
		s.summaryUntil = now.Add(st.limits.SummaryTTL)
	}
	s.rev++
	queued := a.FoldAt > 0 && s.meta.Held >= a.FoldAt
	if queued && s.foldDue.IsZero() {
		s.foldDue = normTime(x.At)
	}
	return ports.SessionAppended{Meta: s.meta, FoldQueued: queued}, nil
}

// Session reads one session.
func (st *SessionStore) Session(_ context.Context, ref session.Ref, limit int) (session.View, error) {
	now := st.clock.Now()
	st.mu.Lock()
	defer st.mu.Unlock()
	s := st.sessions[ref]
	if s == nil || !s.exists(now) {
		return session.View{}, fmt.Errorf("memstore: %s: %w", ref, ports.ErrNotFound)
	}
	return s.view(now, limit), nil
}

// Sessions lists the user's live sessions, the most recently active first.
func (st *SessionStore) Sessions(_ context.Context, scope memory.Scope, q ports.SessionQuery) ([]session.Meta, error) {
	now := st.clock.Now()
	st.mu.Lock()
	var out []session.Meta
	for ref, s := range st.sessions {
		if ref.Scope == scope && s.metaLive(now) && (q.SessionID == "" || ref.SessionID == q.SessionID) {
			out = append(out, s.meta)
		}
	}
	st.mu.Unlock()
	slices.SortFunc(out, func(a, b session.Meta) int {
		if c := b.LastActiveAt.Compare(a.LastActiveAt); c != 0 {
			return c
		}
		return compareRefs(a.Ref, b.Ref)
	})
	return out[:min(len(out), listLimit(q.Limit))], nil
}

// DeleteSession removes everything of the session.
func (st *SessionStore) DeleteSession(_ context.Context, ref session.Ref) error {
	now := st.clock.Now()
	st.mu.Lock()
	defer st.mu.Unlock()
	s := st.sessions[ref]
	delete(st.sessions, ref)
	if s == nil || !s.exists(now) {
		return fmt.Errorf("memstore: %s: %w", ref, ports.ErrNotFound)
	}
	return nil
}

// PurgeUser removes every session of the user, expired ones included.
func (st *SessionStore) PurgeUser(_ context.Context, scope memory.Scope) (map[string]int64, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	counts := map[string]int64{"sessions": 0, "session_messages": 0, "summaries": 0}
	for ref, s := range st.sessions {
		if ref.Scope != scope {
			continue
		}
		counts["sessions"]++
		counts["session_messages"] += int64(len(s.messages))
		if s.summary.Text != "" {
			counts["summaries"]++
		}
		delete(st.sessions, ref)
	}
	return counts, nil
}

// ClaimFolds claims due sessions, the longest waiting first.
func (st *SessionStore) ClaimFolds(_ context.Context, c ports.FoldClaim) ([]session.View, error) {
	now := st.clock.Now()
	st.mu.Lock()
	defer st.mu.Unlock()
	type due struct {
		ref session.Ref
		at  time.Time
	}
	var candidates []due
	for ref, s := range st.sessions {
		if !s.foldDue.IsZero() && !s.foldDue.After(c.Now) && (s.foldHolder == "" || !s.foldClaimUntil.After(c.Now)) {
			candidates = append(candidates, due{ref, s.foldDue})
		}
	}
	slices.SortFunc(candidates, func(a, b due) int {
		return cmp.Or(a.at.Compare(b.at), compareRefs(a.ref, b.ref))
	})
	var out []session.View
	for _, d := range candidates[:min(len(candidates), max(c.Limit, 0))] {
		s := st.sessions[d.ref]
		s.foldHolder, s.foldClaimUntil = c.Holder, normTime(c.Now.Add(c.Lease))
		v := s.view(now, 0)
		v.Meta.Ref = d.ref
		out = append(out, v)
	}
	return out, nil
}

// ApplyFold writes the fold if the claim and the summary version still hold.
func (st *SessionStore) ApplyFold(_ context.Context, f session.Fold) error {
	now := st.clock.Now()
	st.mu.Lock()
	defer st.mu.Unlock()
	s := st.sessions[f.Ref]
	switch {
	case s == nil || s.foldHolder != f.Holder || !s.foldClaimUntil.After(f.At):
		return fmt.Errorf("memstore: apply fold of %s: the claim is no longer %s's: %w", f.Ref, f.Holder, ports.ErrConflict)
	case s.view(now, 0).Summary.Version != f.BaseVersion || !s.metaLive(now):
		return fmt.Errorf("memstore: apply fold of %s: the summary moved past version %d: %w", f.Ref, f.BaseVersion, ports.ErrConflict)
	}
	folded := make(map[string]bool, len(f.MessageIDs))
	for _, id := range f.MessageIDs {
		folded[id] = true
	}
	s.messages = slices.DeleteFunc(s.messages, func(m session.Message) bool { return folded[m.ID] })
	s.meta.Held = len(s.messages)
	s.summary = session.Summary{Text: f.Summary, Version: f.BaseVersion + 1, UpdatedAt: normTime(f.At)}
	s.summaryUntil = now.Add(st.limits.SummaryTTL)
	s.rev++
	s.foldHolder, s.foldClaimUntil = "", time.Time{}
	if s.meta.Held < f.FoldAt || f.FoldAt <= 0 {
		s.foldDue = time.Time{}
	} else {
		s.foldDue = normTime(f.At)
	}
	return nil
}

// ReleaseFold gives the claim back.
func (st *SessionStore) ReleaseFold(_ context.Context, ref session.Ref, holder string, retryAt time.Time) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if s := st.sessions[ref]; s != nil && s.foldHolder == holder {
		s.foldHolder, s.foldClaimUntil, s.foldDue = "", time.Time{}, normTime(retryAt)
	}
	return nil
}

// SessionRefs lists the sessions held, the least recently active first.
func (st *SessionStore) SessionRefs(_ context.Context, limit int) ([]session.Ref, error) {
	now := st.clock.Now()
	st.mu.Lock()
	type held struct {
		ref session.Ref
		at  time.Time
	}
	var all []held
	for ref, s := range st.sessions {
		if s.exists(now) {
			at := s.meta.LastActiveAt
			if s.summary.UpdatedAt.After(at) {
				at = s.summary.UpdatedAt
			}
			all = append(all, held{ref, at})
		}
	}
	st.mu.Unlock()
	slices.SortFunc(all, func(a, b held) int { return cmp.Or(a.at.Compare(b.at), compareRefs(a.ref, b.ref)) })
	out := make([]session.Ref, 0, min(len(all), limit))
	for _, h := range all[:min(len(all), max(limit, 0))] {
		out = append(out, h.ref)
	}
	return out, nil
}

// ExportSession returns the whole session.
func (st *SessionStore) ExportSession(_ context.Context, ref session.Ref) (session.State, error) {
	now := st.clock.Now()
	st.mu.Lock()
	defer st.mu.Unlock()
	s := st.sessions[ref]
	if s == nil || !s.exists(now) {
		return session.State{}, fmt.Errorf("memstore: export %s: %w", ref, ports.ErrNotFound)
	}
	out := session.State{View: s.view(now, 0), Rev: s.rev}
	if s.metaLive(now) {
		out.ExchangeIDs = slices.Clone(s.exchanges)
	}
	return out, nil
}

// RemoveSession deletes the session at revision rev.
func (st *SessionStore) RemoveSession(_ context.Context, ref session.Ref, rev int64) error {
	now := st.clock.Now()
	st.mu.Lock()
	defer st.mu.Unlock()
	s := st.sessions[ref]
	switch {
	case s == nil || !s.exists(now):
		return fmt.Errorf("memstore: remove %s: %w", ref, ports.ErrNotFound)
	case s.rev != rev:
		return fmt.Errorf("memstore: remove %s: revision %d, not %d: %w", ref, s.rev, rev, ports.ErrConflict)
	}
	delete(st.sessions, ref)
	return nil
}

// ReplaceSession writes the whole session at revision rev.
func (st *SessionStore) ReplaceSession(_ context.Context, in session.State, rev int64) error {
	now := st.clock.Now()
	ref := in.Meta.Ref
	st.mu.Lock()
	defer st.mu.Unlock()
	s := st.sessions[ref]
	current := int64(0)
	if s != nil && s.exists(now) {
		current = s.rev
	}
	if current != rev {
		return fmt.Errorf("memstore: replace %s: revision %d, not %d: %w", ref, current, rev, ports.ErrConflict)
	}
	next := &memSession{rev: current + 1}
	if s != nil {
		next.rev = s.rev + 1
		next.foldDue = s.foldDue
	}
	if in.Meta.Live() {
		next.meta = in.Meta
		next.messages = lastN(slices.Clone(in.Messages), st.limits.MaxHistory)
		next.meta.Held = len(next.messages)
		next.exchanges = lastN(slices.Clone(in.ExchangeIDs), session.MaxExchangeIDs)
		next.metaUntil = now.Add(st.limits.MessageTTL)
	}
	if in.Summary.Text != "" {
		next.summary, next.summaryUntil = in.Summary, now.Add(st.limits.SummaryTTL)
	}
	st.sessions[ref] = next
	return nil
}

// SweepExpiredSessions drops up to limit sessions with nothing live left, and the
// messages of sessions whose meta expired.
func (st *SessionStore) SweepExpiredSessions(_ context.Context, now time.Time, limit int) (int64, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	var n int64
	for ref, s := range st.sessions {
		if n >= int64(limit) {
			break
		}
		switch {
		case !s.exists(now):
			delete(st.sessions, ref)
			n++
		case !s.metaLive(now) && len(s.messages) > 0:
			s.messages, s.exchanges, s.meta = nil, nil, session.Meta{}
			n++
		}
	}
	return n, nil
}

func compareRefs(a, b session.Ref) int {
	return cmp.Or(strings.Compare(a.Scope.Tenant, b.Scope.Tenant), strings.Compare(a.Scope.User, b.Scope.User),
		strings.Compare(a.FlowID, b.FlowID), strings.Compare(a.SessionID, b.SessionID))
}

func listLimit(n int) int {
	if n <= 0 || n > ports.MaxSessionList {
		return ports.MaxSessionList
	}
	return n
}

func lastN[T any](s []T, n int) []T {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

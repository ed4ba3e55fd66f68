package sessions

import (
	"context"
	"errors"
	"strconv"

	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/domain/session"
	"engram/ports"
)

// Limits of the listing and of a session read.
const (
	DefaultListLimit = 50
	MaxListLimit     = 500
	MaxReadLimit     = 1000
)

// Get reads one session. FlowID is optional: without it, the most recently active
// session with this id in any flow.
type Get struct {
	Scope     memory.Scope
	SessionID string
	FlowID    string
	Limit     int // most recent messages; 0: every message held
}

// Get returns the meta, the summary and the messages (oldest first).
func (s *Service) Get(ctx context.Context, q Get) (session.View, error) {
	if q.Limit < 0 || q.Limit > MaxReadLimit {
		return session.View{}, invalid.FieldValue("limit", q.Limit, "must be between 0 (every message) and %d, got %d", MaxReadLimit, q.Limit)
	}
	ref, err := s.locate(ctx, q.Scope, q.SessionID, q.FlowID)
	if err != nil {
		return session.View{}, err
	}
	v, err := s.deps.Store.Session(ctx, ref, q.Limit)
	if errors.Is(err, ports.ErrNotFound) {
		return session.View{}, notFound(q.SessionID, q.FlowID)
	}
	if err != nil {
		return session.View{}, err
	}
	// Asked after the read, so a read that began before an erasure was requested
	// cannot return after it.
	if job, err := ports.ErasingJob(ctx, s.deps.Erasures, q.Scope); err != nil || job != "" {
		return session.View{}, errors.Join(err, notFound(q.SessionID, q.FlowID))
	}
	v.Meta.Ref = ref
	return v, err
}

// locate finds the session a client names, with or without its flow.
func (s *Service) locate(ctx context.Context, scope memory.Scope, sessionID, flowID string) (session.Ref, error) {
	if err := session.ValidateSessionID(sessionID); err != nil {
		return session.Ref{}, err
	}
	if flowID != "" {
		return session.ParseRef(scope, flowID, sessionID)
	}
	found, err := s.deps.Store.Sessions(ctx, scope, ports.SessionQuery{SessionID: sessionID, Limit: 1})
	if err != nil {
		return session.Ref{}, err
	}
	if len(found) == 0 {
		return session.Ref{}, notFound(sessionID, "")
	}
	return found[0].Ref, nil
}

// List returns the user's sessions, the most recently active first.
type List struct {
	Scope memory.Scope
	Limit int // 0: DefaultListLimit
}

// List reads the user's index.
func (s *Service) List(ctx context.Context, q List) ([]session.Meta, error) {
	switch {
	case q.Limit == 0:
		q.Limit = DefaultListLimit
	case q.Limit < 0 || q.Limit > MaxListLimit:
		return nil, invalid.FieldValue("limit", q.Limit, "must be between 1 and %d, got %d", MaxListLimit, q.Limit)
	}
	found, err := s.deps.Store.Sessions(ctx, q.Scope, ports.SessionQuery{Limit: q.Limit})
	if err != nil {
		return nil, err
	}
	if job, err := ports.ErasingJob(ctx, s.deps.Erasures, q.Scope); err != nil || job != "" {
		return nil, err
	}
	return found, nil
}

// Delete removes one session: of one flow with FlowID, else the session id in
// every flow.
type Delete struct {
	Scope     memory.Scope
	SessionID string
	FlowID    string
}

// Delete removes the session from the session store: its recent messages, meta,
// summary and index entry. ErrNotFound when the user has no such session. It is
// the session store's share of deleting a chat; the whole deletion (stored
// messages, traces, memories) is app/erasure's DeleteSession.
func (s *Service) Delete(ctx context.Context, cmd Delete) error {
	if err := session.ValidateSessionID(cmd.SessionID); err != nil {
		return err
	}
	refs, err := s.refsOf(ctx, cmd)
	if err != nil {
		return err
	}
	deleted := 0
	for _, ref := range refs {
		switch err := s.deps.Store.DeleteSession(ctx, ref); {
		case err == nil:
			deleted++
		case !errors.Is(err, ports.ErrNotFound):
			return err
		}
	}
	if deleted == 0 {
		return notFound(cmd.SessionID, cmd.FlowID)
	}
	return nil
}

func (s *Service) refsOf(ctx context.Context, cmd Delete) ([]session.Ref, error) {
	if cmd.FlowID != "" {
		ref, err := session.ParseRef(cmd.Scope, cmd.FlowID, cmd.SessionID)
		return []session.Ref{ref}, err
	}
	found, err := s.deps.Store.Sessions(ctx, cmd.Scope, ports.SessionQuery{SessionID: cmd.SessionID})
	refs := make([]session.Ref, len(found))
	for i, m := range found {
		refs[i] = m.Ref
	}
	return refs, err
}

func notFound(sessionID, flowID string) error {
	if flowID != "" {
		return ports.NotFound("flow "+strconv.Quote(flowID)+" session", sessionID)
	}
	return ports.NotFound("session", sessionID)
}

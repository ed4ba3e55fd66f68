package erasure

import (
	"context"
	"errors"
	"fmt"

	"engram/domain/conversation"
	"engram/domain/erasure"
	"engram/domain/memory"
	"engram/domain/session"
	"engram/ports"
)

// DeleteSession is DELETE /v1/users/{user}/sessions/{session}: deleting a chat.
type DeleteSession struct {
	Scope     memory.Scope
	SessionID string
	// FlowID deletes the session of this flow only in the session store; empty:
	// the session id in every flow. The stored messages are those of the
	// conversation named by the session id, which every flow of it shares.
	FlowID string
	// Cascade also purges the memories learned only from the chat
	// (?cascade=memories): see erasure.LearnedOnlyFrom.
	Cascade bool
}

// DeletedSession says what went: the stored messages, the traces of the calls
// made in the session, and the keys of the memories purged with it.
type DeletedSession struct {
	Messages int
	Traces   int64
	Purged   []memory.Key
}

// DeleteSession removes the chat: the session's recent messages, meta, summary
// and index entry; its turns as stored messages (rows, embeddings, vectors,
// lexical documents — a turn still queued for them is refused later, see
// ports.ConversationDeleter); the traces of the context calls made in it, and
// the quotes of its messages in the user's other traces; with Cascade, the
// memories learned only from it, purged as PurgeMemory does. The database's files
// are scrubbed at the end. A repeated call finishes a deletion a failure cut
// short. ErrNotFound when nothing of the session is left.
func (s *Service) DeleteSession(ctx context.Context, cmd DeleteSession) (DeletedSession, error) {
	var out DeletedSession
	if err := s.checkSessionDelete(cmd); err != nil {
		return out, err
	}
	found, err := s.deleteFromSessionStore(ctx, cmd)
	if err != nil {
		return out, err
	}
	msgs, err := s.deleteConversation(ctx, cmd.Scope, cmd.SessionID)
	if err != nil {
		return out, err
	}
	out.Messages = len(msgs)
	if out.Traces, err = s.sessionTraces(ctx, cmd, msgs); err != nil {
		return out, err
	}
	if cmd.Cascade {
		if out.Purged, err = s.sessionCascade(ctx, cmd.Scope, cmd.SessionID); err != nil {
			return out, err
		}
	}
	if !found && out.Messages == 0 && len(out.Purged) == 0 {
		return out, sessionNotFound(cmd)
	}
	return out, s.scrub(ctx)
}

// checkSessionDelete refuses a malformed session or flow id, and a process that
// does not serve sessions.
func (s *Service) checkSessionDelete(cmd DeleteSession) error {
	if err := session.ValidateSessionID(cmd.SessionID); err != nil {
		return err
	}
	if cmd.FlowID != "" {
		if _, err := session.ParseRef(cmd.Scope, cmd.FlowID, cmd.SessionID); err != nil {
			return err
		}
	}
	if s.deps.Sessions == nil || s.deps.Conversations == nil || s.deps.Histories == nil {
		return fmt.Errorf("erasure: this process does not serve sessions: %w", ports.ErrUnavailable)
	}
	return nil
}

// deleteFromSessionStore removes the session from the short-term store; found
// is false when it held none (a retry, or only its stored messages are left).
func (s *Service) deleteFromSessionStore(ctx context.Context, cmd DeleteSession) (found bool, err error) {
	err = s.deps.Sessions.DeleteSession(ctx, cmd.Scope, cmd.SessionID, cmd.FlowID)
	if errors.Is(err, ports.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// deleteConversation deletes the session's stored messages and what was derived
// from them, waiting while a worker holds one.
func (s *Service) deleteConversation(ctx context.Context, scope memory.Scope, conversationID string) ([]conversation.Message, error) {
	bctx, cancel := context.WithTimeout(ctx, s.opts.BusyTimeout)
	defer cancel()
	msgs, err := whileBusy(bctx, func() ([]conversation.Message, error) {
		return s.deps.Conversations.DeleteConversation(ctx, scope, conversationID, s.deps.Clock.Now())
	})
	if err != nil {
		return nil, err
	}
	return msgs, s.forget(ctx, scope, nil, msgs)
}

// sessionTraces deletes the traces of the calls made in the session and blanks
// its messages' quotes in the others.
func (s *Service) sessionTraces(ctx context.Context, cmd DeleteSession, msgs []conversation.Message) (int64, error) {
	if s.deps.Traces == nil {
		return 0, nil
	}
	n, err := s.deps.Traces.DeleteSessionTraces(ctx, cmd.Scope, cmd.SessionID, cmd.FlowID)
	if err != nil {
		return n, fmt.Errorf("delete the session's traces: %w", err)
	}
	erased := make(map[string]string, len(msgs))
	for _, m := range msgs {
		erased[m.ID] = ""
	}
	return n, s.redact(ctx, cmd.Scope, erased)
}

// sessionCascade purges the memories learned only from the conversation.
func (s *Service) sessionCascade(ctx context.Context, scope memory.Scope, conversationID string) ([]memory.Key, error) {
	events, err := s.deps.Conversations.ConversationEvents(ctx, scope, conversationID)
	if err != nil {
		return nil, fmt.Errorf("memories of session %q: %w", conversationID, err)
	}
	var purged []memory.Key
	for _, key := range erasure.CascadeKeys(events) {
		history, err := s.deps.Histories.History(ctx, scope, key)
		if err != nil && !errors.Is(err, ports.ErrNotFound) {
			return purged, fmt.Errorf("history of %q: %w", key.String(), err)
		}
		if !erasure.LearnedOnlyFrom(conversationID, history) {
			continue
		}
		if _, err := s.purgeMemory(ctx, scope, key); errors.Is(err, ports.ErrNotFound) {
			continue // purged already (by a cut-short cascade or by hand)
		} else if err != nil {
			return purged, err
		}
		purged = append(purged, key)
	}
	return purged, nil
}

func sessionNotFound(cmd DeleteSession) error {
	if cmd.FlowID != "" {
		return ports.NotFound("flow \""+cmd.FlowID+"\" session", cmd.SessionID)
	}
	return ports.NotFound("session", cmd.SessionID)
}

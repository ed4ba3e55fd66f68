package erasure

import (
	"context"
	"errors"
	"fmt"

	"engram/domain/conversation"
	"engram/domain/erasure"
	"engram/domain/memory"
	"engram/ports"
)

// DeleteMessage is DELETE /v1/users/{user}/messages/{message_id}.
type DeleteMessage struct {
	Scope     memory.Scope
	MessageID string
	// Cascade also purges every memory with an event whose source is the message
	// (?cascade=memories).
	Cascade bool
}

// DeletedMessage says what went: the message (zero when only the cascade found
// something: a retry after the message itself was deleted) and the keys of the
// memories purged with it.
type DeletedMessage struct {
	Message conversation.Message
	Purged  []memory.Key
}

// DeleteMessage erases the message — row, embedding, vector, lexical document —
// and requeues its neighbours' vectors, which mix its embedding in. With Cascade,
// every memory learned from it is purged as PurgeMemory does, after the message,
// so that no extraction of the message can still add one (the store refuses to
// delete a message while an extraction holds it). A repeated call finishes a
// cascade a crash cut short. ErrNotFound when neither the message nor a memory
// learned from it is left. The traces that quoted the message (or a purged
// memory) keep only its id and a purged mark, and the database's files are
// scrubbed at the end.
func (s *Service) DeleteMessage(ctx context.Context, cmd DeleteMessage) (DeletedMessage, error) {
	if err := conversation.ValidateID("message_id", cmd.MessageID); err != nil {
		return DeletedMessage{}, err
	}
	var out DeletedMessage
	bctx, cancel := context.WithTimeout(ctx, s.opts.BusyTimeout)
	defer cancel()
	m, err := whileBusy(bctx, func() (conversation.Message, error) {
		return s.deps.Messages.DeleteMessage(ctx, cmd.Scope, cmd.MessageID, s.opts.Neighbours, s.deps.Clock.Now())
	})
	switch {
	case err == nil:
		out.Message = m
		if err := s.forget(ctx, cmd.Scope, nil, []conversation.Message{m}); err != nil {
			return out, err
		}
	case !errors.Is(err, ports.ErrNotFound) || !cmd.Cascade:
		return out, notFoundMessage(cmd.MessageID, err)
	}
	if cmd.Cascade {
		events, err := s.deps.Messages.CausedEvents(ctx, cmd.Scope, cmd.MessageID)
		if err != nil {
			return out, fmt.Errorf("memories of message %q: %w", cmd.MessageID, err)
		}
		for _, key := range erasure.CascadeKeys(events) {
			if _, err := s.purgeMemory(ctx, cmd.Scope, key); errors.Is(err, ports.ErrNotFound) {
				continue // purged already (by a cut-short cascade or by hand)
			} else if err != nil {
				return out, err
			}
			out.Purged = append(out.Purged, key)
		}
	}
	if out.Message.Seq == "" && len(out.Purged) == 0 {
		return out, fmt.Errorf("message %q: %w", cmd.MessageID, ports.ErrNotFound)
	}
	if err := s.redact(ctx, cmd.Scope, map[string]string{cmd.MessageID: ""}); err != nil {
		return out, err
	}
	return out, s.scrub(ctx)
}

func notFoundMessage(id string, err error) error {
	if errors.Is(err, ports.ErrNotFound) {
		return fmt.Errorf("message %q: %w", id, ports.ErrNotFound)
	}
	return err
}

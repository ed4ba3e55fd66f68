package agentconv

import (
	"context"
	"errors"

	"engram/domain/memory"
	"engram/ports"
)

// Delete deletes the conversation's session (its messages and what a session
// delete removes with them), then the conversation and its items: a failure
// leaves the conversation to delete again.
func (s *Service) Delete(ctx context.Context, scope memory.Scope, conversationID string) error {
	if _, err := s.deps.Store.Conversation(ctx, scope, conversationID); err != nil {
		return err
	}
	if err := s.deps.Sessions.Delete(ctx, scope, conversationID); err != nil && !errors.Is(err, ports.ErrNotFound) {
		return err
	}
	return s.deps.Store.Delete(ctx, scope, conversationID)
}

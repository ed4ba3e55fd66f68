package agentconv

import (
	"context"

	"engram/domain/agentconv"
	"engram/domain/memory"
)

// Get returns one of the user's conversations.
func (s *Service) Get(ctx context.Context, scope memory.Scope, conversationID string) (agentconv.Conversation, error) {
	return s.deps.Store.Conversation(ctx, scope, conversationID)
}

package agentconv

import (
	"context"

	"engram/domain/agentconv"
	"engram/domain/memory"
)

// GetItem returns one item of one of the user's conversations.
func (s *Service) GetItem(ctx context.Context, scope memory.Scope, conversationID, itemID string) (agentconv.Item, error) {
	return s.deps.Store.Item(ctx, scope, conversationID, itemID)
}

package agentconv

import (
	"context"

	"engram/domain/agentconv"
	"engram/domain/memory"
)

// Update replaces a conversation's metadata.
func (s *Service) Update(ctx context.Context, scope memory.Scope, conversationID string, metadata map[string]string) (agentconv.Conversation, error) {
	if err := agentconv.ValidateMetadata(metadata); err != nil {
		return agentconv.Conversation{}, err
	}
	if metadata == nil {
		metadata = map[string]string{}
	}
	return s.deps.Store.SetMetadata(ctx, scope, conversationID, metadata)
}

package agentconv

import (
	"context"
	"slices"

	"engram/domain/agentconv"
	"engram/domain/memory"
)

// DeleteItem deletes one item. When the turns of the conversation change with
// it (a user or assistant message), the session is first rebuilt from the turns
// of the other items, so that it no longer holds the item's text; a failure
// leaves the item to delete again.
func (s *Service) DeleteItem(ctx context.Context, scope memory.Scope, conversationID, itemID string) error {
	all, err := s.allItems(ctx, scope, conversationID)
	if err != nil {
		return err
	}
	if _, err := s.deps.Store.Item(ctx, scope, conversationID, itemID); err != nil {
		return err
	}
	rest := slices.DeleteFunc(slices.Clone(all), func(it agentconv.Item) bool { return it.ID == itemID })
	if err := s.record(ctx, scope, conversationID, agentconv.Exchanges(all), agentconv.Exchanges(rest)); err != nil {
		return err
	}
	return s.deps.Store.DeleteItem(ctx, scope, conversationID, itemID)
}

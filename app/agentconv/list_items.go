package agentconv

import (
	"context"

	"engram/domain/agentconv"
	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/ports"
)

// ListItems is one page of a conversation's items.
type ListItems struct {
	Scope          memory.Scope
	ConversationID string
	Limit          int    // 0: agentconv.DefaultPage
	After          string // an item id: the page starts after it
	Descending     bool   // newest first
}

// ItemPage is a page of items and whether more follow it.
type ItemPage struct {
	Items []agentconv.Item
	More  bool
}

// ListItems returns one page of the conversation's items.
func (s *Service) ListItems(ctx context.Context, q ListItems) (ItemPage, error) {
	if q.Limit == 0 {
		q.Limit = agentconv.DefaultPage
	}
	if q.Limit < 1 || q.Limit > agentconv.MaxPage {
		return ItemPage{}, invalid.Field("limit", "must be 1 to %d, got %d", agentconv.MaxPage, q.Limit)
	}
	if q.After != "" {
		if err := agentconv.ValidateItemID("after", q.After); err != nil {
			return ItemPage{}, err
		}
	}
	items, more, err := s.deps.Store.Items(ctx, q.Scope, q.ConversationID, ports.ItemQuery{Limit: q.Limit, After: q.After, Descending: q.Descending})
	return ItemPage{Items: items, More: more}, err
}

package agentconv

import (
	"context"

	"engram/domain/agentconv"
	"engram/domain/memory"
)

// AddItems is items added at the end of a conversation.
type AddItems struct {
	Scope          memory.Scope
	ConversationID string
	Items          []NewItem
}

// AddItems stores the items after the conversation's last and records the turns
// they complete in its session; it returns the items with their ids. A
// *SessionError says the items are stored but the session was not updated.
func (s *Service) AddItems(ctx context.Context, cmd AddItems) ([]agentconv.Item, error) {
	if len(cmd.Items) == 0 {
		return nil, invalidItems("must hold at least one item")
	}
	items, err := s.newItems(cmd.Items)
	if err != nil {
		return nil, err
	}
	added, err := s.deps.Store.Append(ctx, cmd.Scope, cmd.ConversationID, items)
	if err != nil {
		return nil, err
	}
	all, err := s.allItems(ctx, cmd.Scope, cmd.ConversationID)
	if err == nil {
		// The items of another append that raced this one may follow ours:
		// the turns before are those of the items before ours.
		before := all
		for i, it := range all {
			if it.Seq == added[0].Seq {
				before = all[:i]
				break
			}
		}
		err = s.record(ctx, cmd.Scope, cmd.ConversationID, agentconv.Exchanges(before), agentconv.Exchanges(all))
	}
	if err != nil {
		return added, &SessionError{Items: added, err: err}
	}
	return added, nil
}

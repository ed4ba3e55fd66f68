package agentconv

import (
	"context"

	"engram/domain/agentconv"
	"engram/domain/memory"
)

// Create is a new conversation with its first items.
type Create struct {
	Scope    memory.Scope
	Metadata map[string]string
	Items    []NewItem
}

// Create stores the conversation and its items, and records the turns they make
// in the conversation's session. A *SessionError says the conversation is stored
// but its session was not updated.
func (s *Service) Create(ctx context.Context, cmd Create) (agentconv.Conversation, error) {
	if err := agentconv.ValidateMetadata(cmd.Metadata); err != nil {
		return agentconv.Conversation{}, err
	}
	items, err := s.newItems(cmd.Items)
	if err != nil {
		return agentconv.Conversation{}, err
	}
	if cmd.Metadata == nil {
		cmd.Metadata = map[string]string{}
	}
	c := agentconv.Conversation{ID: agentconv.NewConversationID(s.deps.IDs.New()), Scope: cmd.Scope, CreatedAt: s.deps.Clock.Now().UTC(),
		Metadata: cmd.Metadata}
	if err := s.deps.Store.Create(ctx, c, items); err != nil {
		return agentconv.Conversation{}, err
	}
	if err := s.record(ctx, cmd.Scope, c.ID, nil, agentconv.Exchanges(items)); err != nil {
		return c, &SessionError{Items: items, err: err}
	}
	return c, nil
}

// Package agentconv holds the use cases of agent conversations kept through the
// OpenAI Conversations API: create, read and delete a conversation, add, list,
// read and delete its items. Each conversation is one engram session: the turns
// its items make are recorded in it, and deleting an item or the conversation
// deletes what the session holds of it. Each use case is one file. It depends on
// domain and ports only.
package agentconv

import (
	"context"
	"errors"

	"engram/domain/agentconv"
	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/ports"
)

// Sessions is the session each conversation is, as these use cases use it.
type Sessions interface {
	// Record records one turn in the session (a retry of a turn records it once).
	Record(ctx context.Context, scope memory.Scope, sessionID string, x agentconv.Exchange) error
	// Delete deletes the session and what it stored; ErrNotFound when there was none.
	Delete(ctx context.Context, scope memory.Scope, sessionID string) error
}

// Deps are what the use cases call.
type Deps struct {
	Store    ports.AgentConversationStore
	Sessions Sessions
	IDs      ports.IDs
	Clock    ports.Clock
}

// Service runs the use cases.
type Service struct {
	deps Deps
}

// New builds the service.
func New(deps Deps) *Service { return &Service{deps: deps} }

// NewItem is an item as a client adds it: Raw is kept as sent; Type, Role and
// Text are read from it by the caller. ID is the client's own id, kept when set
// (reasoning items refer to theirs), else engram gives one.
type NewItem struct {
	ID   string
	Type string
	Role agentconv.Role
	Text string
	Raw  []byte
}

// SessionError is a change of the items that is stored but whose session could
// not be brought up to date: the items are the record, the session catches up
// at the next change of the conversation.
type SessionError struct {
	Items []agentconv.Item // what was stored
	err   error
}

func (e *SessionError) Error() string {
	return "conversation stored, its session not updated: " + e.err.Error()
}

func (e *SessionError) Unwrap() error { return e.err }

// newItems validates the items and gives each its id.
func (s *Service) newItems(in []NewItem) ([]agentconv.Item, error) {
	if len(in) > agentconv.MaxItemsPerAdd {
		return nil, invalidItems("must hold at most %d items, got %d", agentconv.MaxItemsPerAdd, len(in))
	}
	out := make([]agentconv.Item, len(in))
	for i, it := range in {
		id := it.ID
		if id == "" {
			id = agentconv.NewItemID(it.Type, s.deps.IDs.New())
		} else if err := agentconv.ValidateItemID("items.id", id); err != nil {
			return nil, err
		}
		out[i] = agentconv.Item{ID: id, Type: it.Type, Role: it.Role, Text: it.Text, Raw: it.Raw}
	}
	return out, nil
}

// record brings the session of the conversation from the turns before to the
// turns after a change: turns only added are recorded; when a recorded turn
// changed or went away, the session is rebuilt from the turns after.
func (s *Service) record(ctx context.Context, scope memory.Scope, conversationID string, before, after []agentconv.Exchange) error {
	fresh := after[min(len(before), len(after)):]
	if agentconv.Changed(before, after) {
		if err := s.deps.Sessions.Delete(ctx, scope, conversationID); err != nil && !errors.Is(err, ports.ErrNotFound) {
			return err
		}
		fresh = after
	}
	for _, x := range fresh {
		if err := s.deps.Sessions.Record(ctx, scope, conversationID, x); err != nil {
			return err
		}
	}
	return nil
}

// allItems are every item of the conversation, in order.
func (s *Service) allItems(ctx context.Context, scope memory.Scope, conversationID string) ([]agentconv.Item, error) {
	items, _, err := s.deps.Store.Items(ctx, scope, conversationID, ports.ItemQuery{})
	return items, err
}

func invalidItems(format string, args ...any) error { return invalid.Field("items", format, args...) }

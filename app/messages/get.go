package messages

import (
	"context"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
)

// Get reads one message back.
type Get struct {
	Scope     memory.Scope
	MessageID string
}

// View is a message with the memory events it caused (its extraction's writes).
type View struct {
	Message conversation.Message
	Events  []memory.Event
}

// Get returns the message, its status, attempts and error, and the events whose
// source it is. ErrNotFound when the user has no such message.
func (s *Service) Get(ctx context.Context, q Get) (View, error) {
	if err := conversation.ValidateID("message_id", q.MessageID); err != nil {
		return View{}, err
	}
	m, err := s.store.Message(ctx, q.Scope, q.MessageID)
	if err != nil {
		return View{}, ports.NameNotFound(err, "message", q.MessageID)
	}
	events, err := s.store.CausedEvents(ctx, q.Scope, q.MessageID)
	if err != nil {
		return View{}, err
	}
	return View{Message: m, Events: events}, nil
}

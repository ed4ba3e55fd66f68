package memories

import (
	"context"

	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/ports"
)

// Revert makes a memory say again what it said right after one of its events.
type Revert struct {
	Scope   memory.Scope
	Key     string
	EventID string
}

// Revert records a REVERT event, so an undo can itself be undone.
func (s *Service) Revert(ctx context.Context, cmd Revert) (memory.Memory, error) {
	key, err := memory.ParseKey(cmd.Key)
	if err != nil {
		return memory.Memory{}, err
	}
	if cmd.EventID == "" {
		return memory.Memory{}, invalid.Field("event_id", "is required: pick an id from the memory's history")
	}
	if err := memory.ValidateUserID("event_id", cmd.EventID); err != nil {
		return memory.Memory{}, err
	}
	event, err := s.store.Event(ctx, cmd.Scope, cmd.EventID)
	if err != nil {
		return memory.Memory{}, ports.NameNotFound(err, "event", cmd.EventID)
	}
	if event.Key != key {
		return memory.Memory{}, invalid.FieldValue("event_id", cmd.EventID,
			"belongs to memory %q, not %q", event.Key, key)
	}
	return s.store.Update(ctx, cmd.Scope, key, func(current *memory.Memory) (memory.Change, error) {
		if current == nil {
			return memory.Change{}, ports.NotFound("memory", key.String())
		}
		target := event.After
		// A version written before secrets were masked comes back masked.
		target.Content = s.policy.Secrets.Stored(target.Content)
		next := current.RevertTo(target, toolSource, s.clock.Now())
		return memory.Change{Memory: next, Event: memory.NewEvent(s.ids.New(), memory.OpRevert, current, next)}, nil
	})
}

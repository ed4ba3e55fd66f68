package memories

import (
	"context"

	"engram/domain/memory"
	"engram/ports"
)

// Append is memory_append: add text to a memory the user has.
type Append struct {
	Scope   memory.Scope
	Key     string
	Content string
}

// Append fails with ErrNotFound when the key is absent, deleted or expired: an agent
// that appends to nothing has the wrong key, and creating a memory from a fragment
// would store half a fact.
func (s *Service) Append(ctx context.Context, cmd Append) (memory.Memory, error) {
	key, err := writableKey(cmd.Key)
	if err != nil {
		return memory.Memory{}, err
	}
	cmd.Content = s.policy.Secrets.Stored(cmd.Content)
	if err := memory.ValidateContent("content", cmd.Content); err != nil {
		return memory.Memory{}, err
	}
	return s.store.Update(ctx, cmd.Scope, key, func(current *memory.Memory) (memory.Change, error) {
		now := s.clock.Now()
		if current == nil || !current.IsLive(now) {
			return memory.Change{}, ports.NotFound("memory", key.String())
		}
		next, err := current.Append(cmd.Content, toolSource, now)
		if err != nil {
			return memory.Change{}, err
		}
		return memory.Change{Memory: next, Event: memory.NewEvent(s.ids.New(), memory.OpAppend, current, next)}, nil
	})
}

package memories

import (
	"context"

	"engram/domain/memory"
	"engram/ports"
)

// Delete is memory_delete. The memory is deactivated, not erased, so the user can
// see the deletion in its history and revert it.
type Delete struct {
	Scope memory.Scope
	Key   string
}

// Delete fails with ErrNotFound when there is nothing live to delete, so a second
// delete of the same key is a 404.
func (s *Service) Delete(ctx context.Context, cmd Delete) error {
	key, err := memory.ParseKey(cmd.Key)
	if err != nil {
		return err
	}
	_, err = s.store.Update(ctx, cmd.Scope, key, func(current *memory.Memory) (memory.Change, error) {
		now := s.clock.Now()
		if current == nil || !current.Active() {
			return memory.Change{}, ports.NotFound("memory", key.String())
		}
		next := current.Deactivate(toolSource, now)
		return memory.Change{Memory: next, Event: memory.NewEvent(s.ids.New(), memory.OpDelete, current, next)}, nil
	})
	return err
}

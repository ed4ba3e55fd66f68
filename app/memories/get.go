package memories

import (
	"context"

	"engram/domain/memory"
	"engram/ports"
)

// Get reads one memory.
type Get struct {
	Scope           memory.Scope
	Key             string
	IncludeInactive bool // also a deleted or expired memory
}

// Get hides deleted and expired memories unless asked, and noise keys always: old
// noise written before the rules existed must not reach an agent.
func (s *Service) Get(ctx context.Context, q Get) (memory.Memory, error) {
	key, err := memory.ParseKey(q.Key)
	if err != nil {
		return memory.Memory{}, err
	}
	m, err := s.store.Get(ctx, q.Scope, key)
	if err != nil {
		return memory.Memory{}, ports.NameNotFound(err, "memory", key.String())
	}
	if memory.IsNoise(key) || (!q.IncludeInactive && !m.IsLive(s.clock.Now())) {
		return memory.Memory{}, ports.NotFound("memory", key.String())
	}
	return m, nil
}

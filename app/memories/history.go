package memories

import (
	"context"

	"engram/domain/memory"
	"engram/ports"
)

// History lists every change of one key, oldest first.
type History struct {
	Scope memory.Scope
	Key   string
}

// History is ErrNotFound only for a key that was never written.
func (s *Service) History(ctx context.Context, q History) ([]memory.Event, error) {
	key, err := memory.ParseKey(q.Key)
	if err != nil {
		return nil, err
	}
	events, err := s.store.History(ctx, q.Scope, key)
	if err != nil {
		return nil, err
	}
	if len(events) == 0 {
		return nil, ports.NotFound("memory", key.String())
	}
	return events, nil
}

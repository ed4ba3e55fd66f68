package memories

import (
	"context"
	"errors"

	"engram/domain/memory"
	"engram/ports"
)

// Save is memory_save: create the memory under a key, or overwrite what it says.
type Save struct {
	Scope memory.Scope
	Key   string // raw; normalised here
	Draft memory.DraftInput
}

// SaveResult tells whether the key was new to the user (201) or replaced (200).
type SaveResult struct {
	Memory  memory.Memory
	Created bool
}

// Save writes the truth store at once and leaves the vector state DIRTY for the
// indexer. Saving exactly what the memory already says writes nothing.
func (s *Service) Save(ctx context.Context, cmd Save) (SaveResult, error) {
	key, err := writableKey(cmd.Key)
	if err != nil {
		return SaveResult{}, err
	}
	cmd.Draft.Content = s.policy.Secrets.Stored(cmd.Draft.Content)
	draft, err := memory.ParseDraft(cmd.Draft, toolSource)
	if err != nil {
		return SaveResult{}, err
	}
	var (
		created   bool
		unchanged memory.Memory
	)
	saved, err := s.store.Update(ctx, cmd.Scope, key, func(current *memory.Memory) (memory.Change, error) {
		now := s.clock.Now()
		created = false // fn may run again when the store retries a transaction
		if current == nil {
			m, err := memory.New(s.ids.New(), cmd.Scope, key, draft, s.policy, now)
			if err != nil {
				return memory.Change{}, err
			}
			created = true
			return memory.Change{Memory: m, Event: memory.NewEvent(s.ids.New(), memory.OpAdd, nil, m)}, nil
		}
		wasLive := current.IsLive(now)
		if wasLive && saysTheSame(*current, draft, s.policy) {
			// Saying it again restarts its expiry, and changes nothing else.
			next, renewed := current.Renewed(toolSource, now)
			if !renewed {
				unchanged = *current
				return memory.Change{}, ports.ErrNoChange
			}
			return memory.Change{Memory: next, Event: memory.NewEvent(s.ids.New(), memory.OpUpdate, current, next)}, nil
		}
		next, err := current.Replace(draft, s.policy, now)
		if err != nil {
			return memory.Change{}, err
		}
		op := memory.OpUpdate
		if !wasLive {
			// A deleted or expired memory written again is new to the user.
			op, created = memory.OpAdd, true
		}
		return memory.Change{Memory: next, Event: memory.NewEvent(s.ids.New(), op, current, next)}, nil
	})
	if errors.Is(err, ports.ErrNoChange) {
		return SaveResult{Memory: unchanged}, nil
	}
	if err != nil {
		return SaveResult{}, err
	}
	return SaveResult{Memory: saved, Created: created}, nil
}

// saysTheSame reports whether writing d would leave m as it is but for its
// expiry: same text, type, importance, confidence, pin and lifetime.
func saysTheSame(m memory.Memory, d memory.Draft, p memory.Policy) bool {
	return m.Type() == d.Type && m.Content() == d.Content &&
		m.Importance() == d.Importance && m.Confidence() == d.Confidence &&
		(d.Pinned == nil || *d.Pinned == m.Pinned()) && p.Lifetime(d, m) == m.TTLDays()
}

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
	in := memory.Intent{Scope: cmd.Scope, Key: key, Draft: draft,
		Restates: func(live memory.Memory) bool { return saysTheSame(live, draft, s.policy) }}
	var (
		created   bool // the key was new to the user: the write is an ADD
		unchanged memory.Memory
	)
	saved, err := s.store.Update(ctx, cmd.Scope, key, func(current *memory.Memory) (memory.Change, error) {
		c, ok, err := memory.Write(current, in, s.policy, s.ids.New, s.clock.Now())
		created = ok && c.Event.Op == memory.OpAdd // fn may run again when the store retries a transaction
		if err == nil && !ok {
			unchanged = *current
			return c, ports.ErrNoChange
		}
		return c, err
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

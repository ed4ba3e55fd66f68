package memories

import (
	"context"
	"errors"

	"engram/domain/memory"
	"engram/ports"
)

// Patch is memory_patch: change how a memory is kept — its pin, importance or
// lifetime — without saying its content again.
type Patch struct {
	Scope    memory.Scope
	Key      string
	Settings memory.Settings
	// Metadata is raw JSON replacing the memory's metadata (Settings.Metadata):
	// nil keeps it, {} clears it.
	Metadata []byte
}

// Patch fails with ErrNotFound when the key is absent, deleted or expired;
// settings that change nothing write nothing.
func (s *Service) Patch(ctx context.Context, cmd Patch) (memory.Memory, error) {
	key, err := writableKey(cmd.Key)
	if err != nil {
		return memory.Memory{}, err
	}
	if err := cmd.parseMetadata(); err != nil {
		return memory.Memory{}, err
	}
	if err := cmd.Settings.Validate(); err != nil {
		return memory.Memory{}, err
	}
	var unchanged memory.Memory
	m, err := s.store.Update(ctx, cmd.Scope, key, func(current *memory.Memory) (memory.Change, error) {
		now := s.clock.Now()
		if current == nil || !current.IsLive(now) {
			return memory.Change{}, ports.NotFound("memory", key.String())
		}
		next, ok := current.Set(cmd.Settings, toolSource, now)
		if !ok {
			unchanged = *current
			return memory.Change{}, ports.ErrNoChange
		}
		return memory.Change{Memory: next, Event: memory.NewEvent(s.ids.New(), memory.OpUpdate, current, next)}, nil
	})
	if errors.Is(err, ports.ErrNoChange) {
		return unchanged, nil
	}
	return m, err
}

// parseMetadata validates Metadata into Settings.Metadata.
func (cmd *Patch) parseMetadata() error {
	if cmd.Metadata == nil {
		return nil
	}
	md, err := memory.ParseMetadata("metadata", cmd.Metadata)
	if err != nil {
		return err
	}
	cmd.Settings.Metadata = &md
	return nil
}

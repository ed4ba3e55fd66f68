package erasure

import (
	"context"
	"errors"
	"fmt"

	"engram/domain/memory"
	"engram/ports"
)

// PurgeMemory is DELETE /v1/users/{user}/memories/{key}?purge=true.
type PurgeMemory struct {
	Scope memory.Scope
	Key   string
}

// PurgeMemory erases the memory and the content of its history; one PURGE event
// without content stays as the record that something was purged. Its vector and
// lexical document go too, and every stored trace that quoted it keeps only its
// key and a purged mark; then the database's files are scrubbed. ErrNotFound
// when the key holds no memory.
func (s *Service) PurgeMemory(ctx context.Context, cmd PurgeMemory) (memory.Memory, error) {
	key, err := memory.ParseKey(cmd.Key)
	if err != nil {
		return memory.Memory{}, err
	}
	was, err := s.purgeMemory(ctx, cmd.Scope, key)
	if err != nil {
		return was, err
	}
	return was, s.scrub(ctx)
}

func (s *Service) purgeMemory(ctx context.Context, scope memory.Scope, key memory.Key) (memory.Memory, error) {
	bctx, cancel := context.WithTimeout(ctx, s.opts.BusyTimeout)
	defer cancel()
	was, err := whileBusy(bctx, func() (memory.Memory, error) {
		now := s.deps.Clock.Now()
		return s.deps.Memories.PurgeMemory(ctx, scope, key, func(current memory.Memory) memory.Event {
			return memory.NewPurgeEvent(s.deps.IDs.New(), current, memory.ChannelTool, now)
		}, now)
	})
	if err != nil {
		if errors.Is(err, ports.ErrNotFound) {
			return memory.Memory{}, fmt.Errorf("memory %q: %w", key.String(), ports.ErrNotFound)
		}
		return memory.Memory{}, err
	}
	if err := s.forget(ctx, scope, []string{was.ID()}, nil); err != nil {
		return was, err
	}
	// A trace names a memory by its key, which is made from its content: the
	// trace keeps the purged key its history keeps instead.
	return was, s.redact(ctx, scope, map[string]string{key.String(): memory.PurgedKey(scope, key).String()})
}

package metrics

import (
	"context"

	"engram/domain/memory"
	"engram/ports"
)

// memoryStore counts every committed memory change by channel and op.
type memoryStore struct {
	ports.MemoryStore
	m *Metrics
}

// MemoryStore decorates a store with engram_memory_writes_total.
func (m *Metrics) MemoryStore(s ports.MemoryStore) ports.MemoryStore {
	return &memoryStore{MemoryStore: s, m: m}
}

func (s *memoryStore) Update(ctx context.Context, scope memory.Scope, key memory.Key,
	fn func(*memory.Memory) (memory.Change, error)) (memory.Memory, error) {
	var last memory.Change
	out, err := s.MemoryStore.Update(ctx, scope, key, func(cur *memory.Memory) (memory.Change, error) {
		c, err := fn(cur)
		last = c // the store may retry: only the last attempt's change is committed
		return c, err
	})
	if err == nil {
		s.m.memoryWrites.WithLabelValues(string(last.Event.Source.Channel), string(last.Event.Op)).Inc()
	}
	return out, err
}

package indexing

import (
	"context"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
)

// Signal tells an indexer in this process that there is new work, so a write is
// searchable by vector at once instead of at the next poll. Notifications
// coalesce: one pending wake-up stands for any number of writes. The zero value is
// not usable; build one with NewSignal. A nil *Signal ignores Notify.
type Signal struct {
	ch chan struct{}
}

// NewSignal returns a signal with no pending notification.
func NewSignal() *Signal { return &Signal{ch: make(chan struct{}, 1)} }

// Notify records a wake-up without ever blocking.
func (s *Signal) Notify() {
	if s == nil {
		return
	}
	select {
	case s.ch <- struct{}{}:
	default:
	}
}

// C delivers the pending wake-up.
func (s *Signal) C() <-chan struct{} {
	if s == nil {
		return nil
	}
	return s.ch
}

// NotifyMemoryWrites decorates a memory store so that every committed change wakes
// the indexer (every change of a memory makes its vector DIRTY).
func NotifyMemoryWrites(store ports.MemoryStore, s *Signal) ports.MemoryStore {
	return &notifyingMemories{MemoryStore: store, signal: s}
}

type notifyingMemories struct {
	ports.MemoryStore
	signal *Signal
}

func (n *notifyingMemories) Update(ctx context.Context, scope memory.Scope, key memory.Key,
	fn func(current *memory.Memory) (memory.Change, error),
) (memory.Memory, error) {
	m, err := n.MemoryStore.Update(ctx, scope, key, fn)
	if err == nil {
		n.signal.Notify()
	}
	return m, err
}

// NotifyMessageIngest decorates a message store so that storing new messages wakes
// the indexer.
func NotifyMessageIngest(store ports.MessageLog, s *Signal) ports.MessageLog {
	return &notifyingMessages{MessageLog: store, signal: s}
}

type notifyingMessages struct {
	ports.MessageLog
	signal *Signal
}

func (n *notifyingMessages) Ingest(ctx context.Context, scope memory.Scope, msgs []conversation.Message) ([]ports.Ingested, error) {
	out, err := n.MessageLog.Ingest(ctx, scope, msgs)
	if err == nil {
		for _, in := range out {
			if in.Created {
				n.signal.Notify()
				break
			}
		}
	}
	return out, err
}

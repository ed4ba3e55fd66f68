// Package memories holds the use cases of the explicit tools channel: save,
// append, delete, get, list, history and revert of one user's long-term memories.
// Each use case is one file. It depends on domain and ports only.
package memories

import (
	"engram/domain/memory"
	"engram/ports"
)

// Service runs the memory use cases.
type Service struct {
	store  ports.MemoryStore
	clock  ports.Clock
	ids    ports.IDs
	policy memory.Policy
}

// New builds the service.
func New(store ports.MemoryStore, clock ports.Clock, ids ports.IDs, policy memory.Policy) *Service {
	return &Service{store: store, clock: clock, ids: ids, policy: policy}
}

// toolSource is where explicit calls come from.
var toolSource = memory.Source{Channel: memory.ChannelTool}

package memstore_test

import (
	"testing"

	"engram/adapters/memstore"
	"engram/ports"
	"engram/test/contract"
)

func TestErasure_Memstore(t *testing.T) {
	t.Parallel()
	contract.RunErasure(t, func(t *testing.T, clock ports.Clock) contract.ErasureStores {
		jobs := memstore.NewJobStore()
		memories := memstore.NewMemoryStore()
		memories.GuardErasures(jobs)
		messages := memstore.NewMessageStore(memories)
		messages.GuardErasures(jobs)
		graph := memstore.NewOrgStore()
		graph.GuardErasures(jobs)
		activity := memstore.NewActivityStore()
		activity.GuardErasures(jobs)
		return contract.ErasureStores{
			Org: graph, Activity: activity,
			Erasures: jobs, Jobs: jobs, Memories: memories, Messages: messages,
			Sync:  memstore.NewVectorSyncStore(memories, messages),
			Truth: memstore.NewUserPurger(memories, messages, jobs, clock),
		}
	})
}

package memstore_test

import (
	"testing"

	"engram/adapters/memstore"
	"engram/test/contract"
)

func TestTraceStore(t *testing.T) {
	t.Parallel()
	contract.RunTraceStore(t, func(t *testing.T) contract.TraceStores {
		jobs := memstore.NewJobStore()
		traces := memstore.NewTraceStore()
		traces.GuardErasures(jobs)
		return contract.TraceStores{Traces: traces, Erasures: jobs}
	})
}

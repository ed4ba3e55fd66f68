package bootstrap

import (
	"go.uber.org/fx"

	"engram/adapters/clock"
	"engram/adapters/metrics"
	"engram/adapters/sqlstore"
	"engram/adapters/textanalysis"
	"engram/adapters/ulids"
	"engram/app/memories"
	"engram/bootstrap/config"
	"engram/domain/memory"
	"engram/ports"
)

// coreModule is what every role needs: logging, time, ids, metrics, the text
// analyser, and the memory use cases over the truth store (bootstrap/storage.go).
var coreModule = fx.Module("core",
	fx.Provide(
		newLogger,
		systemClock,
		newIDs,
		metrics.New,
		// The analyser of every indexed text and every query (docs/BENCHMARKS.md).
		func() ports.TextAnalyzer { return textanalysis.New(textanalysis.Options{}) },
		newMemoriesService,
		newMemoryFinder,
	),
)

func systemClock() ports.Clock { return clock.System{} }

func newIDs() ports.IDs { return ulids.New() }

type memoriesParams struct {
	fx.In
	Store  ports.MemoryStore
	Clock  ports.Clock
	IDs    ports.IDs
	Config config.Config
}

func newMemoriesService(p memoriesParams) *memories.Service {
	return memories.New(p.Store, p.Clock, p.IDs, memoryPolicy(p.Config))
}

// newMemoryFinder reads memories by id and by filter straight from the SQL store:
// reads need neither the metrics nor the lexical index around writes.
func newMemoryFinder(store *sqlstore.MemoryStore, clk ports.Clock) *memories.Finder {
	return memories.NewFinder(store, clk)
}

// memoryPolicy is the lifecycle of memories every write path follows.
func memoryPolicy(cfg config.Config) memory.Policy {
	return memory.Policy{DefaultTTLDays: cfg.Memory.DefaultTTLDays, ConstraintTTLDays: cfg.Memory.ConstraintTTLDays, Secrets: cfg.Secrets.ScreenMode()}
}

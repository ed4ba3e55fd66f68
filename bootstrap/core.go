package bootstrap

import (
	"context"

	"go.uber.org/fx"

	"engram/adapters/clock"
	"engram/adapters/metrics"
	"engram/adapters/ulids"
	"engram/app/memories"
	"engram/bootstrap/config"
	"engram/domain/memory"
	"engram/ports"
)

// coreModule is what every role needs: logging, time, ids, metrics, the truth store
// and the memory use cases.
var coreModule = fx.Module("core",
	fx.Provide(
		newLogger,
		systemClock,
		newIDs,
		metrics.New,
		provideStorage,
		newMemoryStore, // bootstrap/retrieval.go: metrics and the lexical index around the SQL store
		func(s *storage) ports.APIKeyStore { return s.apiKeys },
		newMemoriesService,
		newMemoryFinder,
	),
)

func systemClock() ports.Clock { return clock.System{} }

func newIDs() ports.IDs { return ulids.New() }

func newMemoriesService(store ports.MemoryStore, clk ports.Clock, ids ports.IDs, cfg config.Config) *memories.Service {
	return memories.New(store, clk, ids, memoryPolicy(cfg))
}

// newMemoryFinder reads memories by id and by filter straight from the SQL store:
// reads need neither the metrics nor the lexical index around writes.
func newMemoryFinder(s *storage, clk ports.Clock) *memories.Finder {
	return memories.NewFinder(s.memories, clk)
}

// memoryPolicy is the lifecycle of memories every write path follows.
func memoryPolicy(cfg config.Config) memory.Policy {
	return memory.Policy{DefaultTTLDays: cfg.Memory.DefaultTTLDays, ConstraintTTLDays: cfg.Memory.ConstraintTTLDays, Secrets: cfg.Secrets.ScreenMode()}
}

// provideStorage opens the database when the process starts and closes it last.
func provideStorage(lc fx.Lifecycle, cfg config.Config, m *metrics.Metrics) (*storage, error) {
	s, err := openStorage(context.Background(), cfg, cfg.Database.AutoMigrate || !cfg.IsPostgres())
	if err != nil {
		return nil, err
	}
	m.GaugeFunc("engram_memories_active", "Active memories across all tenants.", s.countActive)
	lc.Append(fx.StopHook(s.Close))
	return s, nil
}

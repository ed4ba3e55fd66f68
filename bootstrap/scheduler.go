package bootstrap

import (
	"log/slog"
	"time"

	"go.uber.org/fx"

	"engram/app/lifecycle"
	"engram/bootstrap/config"
	"engram/ports"
)

// schedulerModule is the scheduler role: periodic lifecycle work, the memories'
// TTL sweep (the sessions and context modules add their own sweeps to the role).
// Several schedulers may run: each memory is expired once.
var schedulerModule = fx.Module("scheduler",
	fx.Provide(fx.Private, newSweeper),
	fx.Invoke(startScheduler),
)

func newSweeper(cfg config.Config, s *storage, mem ports.MemoryStore, clk ports.Clock, ids ports.IDs, log *slog.Logger) *lifecycle.Sweeper {
	return lifecycle.NewSweeper(s.memories, mem, clk, ids, lifecycle.SweepOptions{
		Interval: time.Duration(cfg.Scheduler.ExpirySweepIntervalSec) * time.Second,
		Logger:   log,
	})
}

// startScheduler runs the loops with the app and waits for them when it stops.
func startScheduler(lc fx.Lifecycle, sw *lifecycle.Sweeper) { runWhileUp(lc, sw.Run) }

package bootstrap

import (
	"log/slog"
	"time"

	"go.uber.org/fx"

	"engram/adapters/sqlstore"
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

type sweeperParams struct {
	fx.In
	Config   config.Config
	Expiring *sqlstore.MemoryStore
	Memories ports.MemoryStore
	Clock    ports.Clock
	IDs      ports.IDs
	Log      *slog.Logger
}

func newSweeper(p sweeperParams) *lifecycle.Sweeper {
	return lifecycle.NewSweeper(p.Expiring, p.Memories, p.Clock, p.IDs, lifecycle.SweepOptions{
		Interval: time.Duration(p.Config.Scheduler.ExpirySweepIntervalSec) * time.Second,
		Logger:   p.Log,
	})
}

// startScheduler runs the loops with the app and waits for them when it stops.
func startScheduler(lc fx.Lifecycle, sw *lifecycle.Sweeper) { runWhileUp(lc, sw.Run) }

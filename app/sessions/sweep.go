package sessions

import (
	"context"
	"log/slog"
	"time"

	"engram/app/runloop"
	"engram/ports"
)

// ExpiredSweeper removes what passed its time in a store that emulates expiry
// (SQL): reads hide it at once, the sweep reclaims the rows.
type ExpiredSweeper interface {
	SweepExpiredSessions(ctx context.Context, now time.Time, limit int) (int64, error)
}

// SweepOptions shape the sweep.
type SweepOptions struct {
	Interval time.Duration // between sweeps in Run; default 5 min
	Batch    int           // sessions per query; default 500
	Logger   *slog.Logger
}

// Sweeper is the scheduler role's clean-up of expired SQL sessions.
type Sweeper struct {
	clock ports.Clock
	sweep ExpiredSweeper
	opts  SweepOptions
}

// NewSweeper builds the sweep of store.
func NewSweeper(store ExpiredSweeper, clock ports.Clock, opts SweepOptions) *Sweeper {
	if opts.Interval <= 0 {
		opts.Interval = 5 * time.Minute
	}
	if opts.Batch <= 0 {
		opts.Batch = 500
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Sweeper{clock: clock, sweep: store, opts: opts}
}

// Sweep removes every expired session, a batch at a time, and returns how many.
func (s *Sweeper) Sweep(ctx context.Context) (int64, error) {
	return runloop.Batches(ctx, s.opts.Batch, func(ctx context.Context, limit int) (int64, error) {
		return s.sweep.SweepExpiredSessions(ctx, s.clock.Now(), limit)
	})
}

// Run sweeps every Interval until ctx ends; a failed sweep is tried again at the
// next one (reads hide expired sessions meanwhile).
func (s *Sweeper) Run(ctx context.Context) {
	runloop.Sweep(ctx, s.opts.Interval, s.opts.Logger, "session sweep", s.Sweep)
}

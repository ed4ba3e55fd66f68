package contextbuild

import (
	"context"
	"log/slog"
	"time"

	"engram/app/runloop"
	"engram/ports"
)

// SweepOptions shape the trace sweep.
type SweepOptions struct {
	Retention time.Duration // traces older than this go; default 7 days
	Interval  time.Duration // between sweeps in Run; default 10 min
	Batch     int           // traces per delete; default 1000
	Logger    *slog.Logger
}

// Sweeper is the scheduler role's clean-up of traces past their retention (reads
// hide them at once; the sweep reclaims the rows).
type Sweeper struct {
	store ports.TraceStore
	clock ports.Clock
	opts  SweepOptions
}

// NewSweeper builds the sweep of store.
func NewSweeper(store ports.TraceStore, clock ports.Clock, opts SweepOptions) *Sweeper {
	if opts.Retention <= 0 {
		opts.Retention = DefaultRetention
	}
	if opts.Interval <= 0 {
		opts.Interval = 10 * time.Minute
	}
	if opts.Batch <= 0 {
		opts.Batch = 1000
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Sweeper{store: store, clock: clock, opts: opts}
}

// Sweep removes every trace past its retention, a batch at a time, and says how
// many.
func (s *Sweeper) Sweep(ctx context.Context) (int64, error) {
	cutoff := s.clock.Now().Add(-s.opts.Retention)
	return runloop.Batches(ctx, s.opts.Batch, func(ctx context.Context, limit int) (int64, error) {
		return s.store.DeleteTracesBefore(ctx, cutoff, limit)
	})
}

// Run sweeps every Interval until ctx ends; a failed sweep is tried again at the
// next one.
func (s *Sweeper) Run(ctx context.Context) {
	runloop.Sweep(ctx, s.opts.Interval, s.opts.Logger, "trace sweep", s.Sweep)
}

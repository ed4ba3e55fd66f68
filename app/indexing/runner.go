package indexing

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"engram/app/runloop"
)

// DefaultInterval is how often the runner polls when nothing wakes it
// (MEMORY_INDEX_WORKER_INTERVAL_SEC in configs/engram.yaml says 5).
const DefaultInterval = 30 * time.Second

// RunnerOptions shape the indexer role's loop.
type RunnerOptions struct {
	Interval time.Duration // MEMORY_INDEX_WORKER_INTERVAL_SEC
	Signal   *Signal       // in-process writes; nil: poll only
	Logger   *slog.Logger
}

// Runner is the indexer role: it drains the due memories and messages, then waits
// for the next poll or a signal. Start and Stop never block beyond their context.
type Runner struct {
	ix   *Indexer
	opts RunnerOptions
	log  *slog.Logger

	loop runloop.Loop
}

// NewRunner builds the loop around an indexer.
func NewRunner(ix *Indexer, opts RunnerOptions) *Runner {
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Runner{ix: ix, opts: opts, log: opts.Logger}
}

// Start runs the loop in a goroutine and returns at once.
func (r *Runner) Start() { r.loop.Start(r.run) }

// Stop ends the loop: the batch in flight finishes unless ctx ends first; then it
// is cancelled and its claims are released.
func (r *Runner) Stop(ctx context.Context) error {
	if err := r.loop.Stop(ctx); err != nil {
		return fmt.Errorf("indexer: stopped before the batch in flight finished: %w", err)
	}
	return nil
}

func (r *Runner) stopping() bool { return r.loop.Stopping() }

func (r *Runner) run(ctx context.Context) {
	for !r.stopping() {
		if _, err := r.ix.Drain(ctx, r.stopping); err != nil && ctx.Err() == nil {
			r.log.Warn("indexer: a batch failed; retrying at the next poll", "error", err)
		}
		timer := time.NewTimer(r.opts.Interval)
		select {
		case <-r.loop.Stopped():
		case <-r.opts.Signal.C():
		case <-timer.C:
		}
		timer.Stop()
	}
}

// Totals is what a Drain did.
type Totals struct {
	Memories, Messages Report
}

func (t *Totals) add(into *Report, r Report) {
	into.Kind = r.Kind
	into.Claimed += r.Claimed
	into.Embedded += r.Embedded
	into.Unchanged += r.Unchanged
	into.Removed += r.Removed
	into.Upserted += r.Upserted
	into.Synced += r.Synced
	into.Failed += r.Failed
	into.Stale += r.Stale
	into.Duration += r.Duration
	for k, v := range r.Failures {
		into.fail(k, v)
	}
}

// Drain syncs batches of memories and messages, alternately, until neither has
// anything due (FAILED items wait for their retry time), an error, or stop says so
// (nil: never). Memories go first: they are what explicit tool calls wait for.
// Tests and the benchmark drive the indexer through Drain.
func (ix *Indexer) Drain(ctx context.Context, stop func() bool) (Totals, error) {
	var t Totals
	for ctx.Err() == nil && (stop == nil || !stop()) {
		mem, err := ix.SyncMemories(ctx)
		t.add(&t.Memories, mem)
		if err != nil {
			return t, err
		}
		msg, err := ix.SyncMessages(ctx)
		t.add(&t.Messages, msg)
		if err != nil {
			return t, err
		}
		if mem.Claimed == 0 && msg.Claimed == 0 {
			return t, nil
		}
	}
	return t, ctx.Err()
}

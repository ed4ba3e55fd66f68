package lifecycle

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"engram/domain/memory"
	"engram/ports"
)

// ExpiredFinder lists active memories of every tenant whose expiry has passed,
// oldest expiry first. Reads filter expired memories anyway; the sweep turns them
// into EXPIRE events so their history says so and the indexer drops their vectors.
type ExpiredFinder interface {
	ExpiredMemories(ctx context.Context, now time.Time, limit int) ([]memory.Memory, error)
}

// Defaults of SweepOptions.
const (
	DefaultSweepBatch    = 500
	DefaultSweepInterval = 5 * time.Minute
)

// SweepOptions bound the TTL sweep.
type SweepOptions struct {
	Batch    int           // memories read per query; 0: 500
	Interval time.Duration // between sweeps in Run; 0: 5 min
	Logger   *slog.Logger
}

// Sweeper is the scheduler role's TTL sweep.
type Sweeper struct {
	finder   ExpiredFinder
	memories ports.MemoryStore
	clock    ports.Clock
	ids      ports.IDs
	opts     SweepOptions
}

// NewSweeper builds a sweeper.
func NewSweeper(finder ExpiredFinder, memories ports.MemoryStore, clock ports.Clock, ids ports.IDs, opts SweepOptions) *Sweeper {
	if opts.Batch <= 0 {
		opts.Batch = DefaultSweepBatch
	}
	if opts.Interval <= 0 {
		opts.Interval = DefaultSweepInterval
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Sweeper{finder: finder, memories: memories, clock: clock, ids: ids, opts: opts}
}

// Sweep deactivates every memory that has expired, with an EXPIRE event on channel
// consolidation, and returns how many it expired. Each memory is checked again
// inside its own transaction, so a memory saved again meanwhile (new expiry) is
// left alone, and several schedulers sweeping at once expire each memory once.
func (s *Sweeper) Sweep(ctx context.Context) (int, error) {
	expired := 0
	for {
		batch, err := s.finder.ExpiredMemories(ctx, s.clock.Now(), s.opts.Batch)
		if err != nil {
			return expired, err
		}
		changed := 0
		for _, m := range batch {
			done, err := s.expire(ctx, m)
			if err != nil {
				return expired, err
			}
			if done {
				changed++
			}
		}
		expired += changed
		// A short batch is the last; a batch in which nothing changed means another
		// sweeper is ahead of this one on the same rows.
		if len(batch) < s.opts.Batch || changed == 0 {
			return expired, nil
		}
	}
}

func (s *Sweeper) expire(ctx context.Context, m memory.Memory) (bool, error) {
	_, err := s.memories.Update(ctx, m.Scope(), m.Key(), func(cur *memory.Memory) (memory.Change, error) {
		now := s.clock.Now()
		if cur == nil || !cur.Active() || !cur.IsExpired(now) {
			return memory.Change{}, ports.ErrNoChange
		}
		next := cur.Deactivate(consolidationSource, now)
		return memory.Change{Memory: next, Event: memory.NewEvent(s.ids.New(), memory.OpExpire, cur, next)}, nil
	})
	if errors.Is(err, ports.ErrNoChange) {
		return false, nil
	}
	return err == nil, err
}

// Run sweeps every Interval until ctx ends. A failed sweep is logged and tried
// again at the next interval: expired memories are hidden from reads meanwhile.
func (s *Sweeper) Run(ctx context.Context) {
	t := time.NewTicker(s.opts.Interval)
	defer t.Stop()
	for {
		n, err := s.Sweep(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			s.opts.Logger.WarnContext(ctx, "ttl sweep failed; retrying at the next interval", "error", err, "expired", n)
		case n > 0:
			s.opts.Logger.InfoContext(ctx, "ttl sweep", "expired", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

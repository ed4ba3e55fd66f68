package extraction

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"engram/app/runloop"
	"engram/domain/conversation"
	"engram/ports"
)

// Queue is what the runner needs of the message store.
type Queue interface {
	// ClaimDue claims the due messages of up to c.MaxConversations conversations
	// (conversations, however many messages each has) for c.Worker until
	// c.Now+c.Lease and returns them, each conversation's messages together and in
	// conversation order, the earliest deadline first. A user has at most one
	// conversation under a live claim, whichever worker holds it: a claim skips
	// users with one and takes one conversation per user, so one user's memories
	// are written by one run at a time, in the order their conversations fell due.
	// See ports.Claim for what is due.
	ClaimDue(ctx context.Context, c ports.Claim) ([]conversation.Message, error)
	// Finish stores the outcome (status, skip reason, attempts, error, process
	// after, processed at) of messages the worker claimed and releases them. A
	// message no longer claimed by the worker is left alone; the result counts
	// the messages stored.
	Finish(ctx context.Context, worker string, msgs []conversation.Message) (int, error)
	// Release gives claimed messages back unchanged (a worker shutting down), so
	// they need not wait for the lease. Messages not claimed by worker are left alone.
	Release(ctx context.Context, worker string, msgs []conversation.Message) error
}

// Processor runs the pipeline over one conversation's claimed messages.
type Processor interface {
	Process(ctx context.Context, msgs []conversation.Message) ([]conversation.Message, Report)
}

// Defaults of RunnerOptions.
const (
	DefaultPollInterval = time.Second
	DefaultScanInterval = 120 * time.Second
	DefaultLease        = 300 * time.Second
	DefaultConcurrency  = 8 // LONG_TERM_MEMORY_WORKER_CONCURRENCY's default
)

// RunnerOptions shape the worker loop.
type RunnerOptions struct {
	Worker       string        // this worker's claim name, unique per process
	PollInterval time.Duration // how often fresh PENDING work is looked for
	// ScanEnabled turns on the periodic rescan (LONG_TERM_MEMORY_SCAN_ENABLED):
	// FAILED messages past their backoff and messages a dead worker claimed. Without
	// it they wait for an operator.
	ScanEnabled  bool
	ScanInterval time.Duration // LONG_TERM_MEMORY_SCAN_INTERVAL_SEC
	// Lease is how long a claim lasts (LONG_TERM_MEMORY_CLAIM_LEASE_SEC). It should
	// exceed the extract and upsert timeouts together, or a slow run loses its claim.
	Lease time.Duration
	// Concurrency is how many conversations run at once
	// (LONG_TERM_MEMORY_WORKER_CONCURRENCY): a claim takes as many as there are
	// free slots, and a slot is refilled as soon as its run ends.
	Concurrency int
	Logger      *slog.Logger
	Observer    Observer // nil: none
}

// Runner is the worker role's loop: it claims due conversations, runs the pipeline
// and stores the outcomes. Start and Stop never block beyond their context.
type Runner struct {
	queue Queue
	proc  Processor
	clock ports.Clock
	opts  RunnerOptions
	log   *slog.Logger

	wake chan struct{}
	mu   sync.Mutex
	next time.Time // the earliest due time someone announced

	loop runloop.Loop
}

// NewRunner builds a runner.
func NewRunner(queue Queue, proc Processor, clock ports.Clock, opts RunnerOptions) *Runner {
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	if opts.ScanInterval <= 0 {
		opts.ScanInterval = DefaultScanInterval
	}
	if opts.Lease <= 0 {
		opts.Lease = DefaultLease
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultConcurrency
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Runner{queue: queue, proc: proc, clock: clock, opts: opts, log: opts.Logger,
		wake: make(chan struct{}, 1)}
}

// Notify tells the runner that messages become due at due (ingestion in the same
// process), so it need not wait for its next poll.
func (r *Runner) Notify(due time.Time) {
	r.mu.Lock()
	if r.next.IsZero() || due.Before(r.next) {
		r.next = due
	}
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Start runs the loop in a goroutine and returns at once.
func (r *Runner) Start() { r.loop.Start(r.serve) }

// Stop ends the loop: the conversations in flight finish (their runs are bounded
// by the pipeline's timeouts) unless ctx ends first; then they are cancelled and
// their messages released for another worker.
func (r *Runner) Stop(ctx context.Context) error {
	if err := r.loop.Stop(ctx); err != nil {
		return fmt.Errorf("extraction runner: stopped before the runs in flight finished: %w", err)
	}
	return nil
}

func (r *Runner) stopping() bool { return r.loop.Stopping() }

func (r *Runner) serve(ctx context.Context) {
	lastScan := time.Now()
	if r.opts.ScanEnabled {
		r.tickLogged(ctx, true) // pick up what a previous process left behind
	}
	for !r.stopping() {
		r.tickLogged(ctx, false)
		if r.opts.ScanEnabled && time.Since(lastScan) >= r.opts.ScanInterval {
			lastScan = time.Now()
			r.tickLogged(ctx, true)
		}
		wait := r.opts.PollInterval
		r.mu.Lock()
		if !r.next.IsZero() {
			if until := r.next.Sub(r.clock.Now()); until < wait {
				wait = max(until, 0)
			}
			r.next = time.Time{}
		}
		r.mu.Unlock()
		timer := time.NewTimer(wait)
		select {
		case <-r.loop.Stopped():
		case <-r.wake:
		case <-timer.C:
		}
		timer.Stop()
	}
}

func (r *Runner) tickLogged(ctx context.Context, recover bool) {
	if _, err := r.Tick(ctx, recover); err != nil && ctx.Err() == nil {
		r.log.Warn("extraction: claiming due messages failed; retrying at the next poll", "error", err)
	}
}

// Tick claims due conversations and processes them until none is due, or the
// runner stops. recover selects the rescan (see ports.Claim). Up to Concurrency
// conversations run at once; as soon as half the slots are free they are claimed
// again, so one slow conversation does not hold the others back. It returns how many
// messages it stored an outcome for. Tests drive the runner through Tick.
func (r *Runner) Tick(ctx context.Context, recover bool) (total int, err error) {
	var (
		running int
		ended   = make(chan int, r.opts.Concurrency)
	)
	collect := func(n int) { total += n; running-- }
	defer func() { // never leave runs behind: they store their outcomes first
		for running > 0 {
			collect(<-ended)
		}
	}()
	// A claim is one statement however many conversations it takes: refill when
	// half the slots are free (or all), not after every run.
	refill := max(1, (r.opts.Concurrency+1)/2)
	for ctx.Err() == nil && !r.stopping() {
		free := r.opts.Concurrency - running
		var claimed []conversation.Message
		if free >= refill || running == 0 {
			claimed, err = r.queue.ClaimDue(ctx, ports.Claim{Worker: r.opts.Worker, Now: r.clock.Now(),
				Lease: r.opts.Lease, MaxConversations: free, Recover: recover})
			if err != nil {
				return total, err
			}
		}
		if len(claimed) == 0 {
			if running == 0 {
				return total, nil
			}
			// Full, or nothing due now: a run ending may free a user's next
			// conversation, so claim again when one does.
			collect(<-ended)
			continue
		}
		for _, g := range byConversation(claimed) {
			running++
			go func() { ended <- r.run(ctx, g) }()
		}
	}
	return total, ctx.Err()
}

// run processes one conversation and stores the outcome while the claim is ours.
func (r *Runner) run(ctx context.Context, msgs []conversation.Message) int {
	start := time.Now()
	out, rep := r.proc.Process(ctx, msgs)
	rep.Duration = time.Since(start)
	if ctx.Err() != nil {
		// Shutting down: the run was cut short, not failed. Hand the messages back.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := r.queue.Release(rctx, r.opts.Worker, msgs); err != nil {
			r.log.Warn("extraction: releasing messages on shutdown failed; they return after the lease", "error", err)
		}
		return 0
	}
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	n, err := r.queue.Finish(fctx, r.opts.Worker, out)
	if err != nil {
		r.log.Warn("extraction: storing outcomes failed; the messages return after the lease",
			"conversation", rep.ConversationID, "error", err)
		return 0
	}
	if n < len(out) {
		r.log.Info("extraction: another worker took over some messages; their outcome was not stored",
			"conversation", rep.ConversationID, "stored", n, "processed", len(out))
	}
	if rep.Err != nil {
		level := slog.LevelWarn
		if errors.Is(rep.Err, context.DeadlineExceeded) || IsBadOutput(rep.Err) {
			level = slog.LevelInfo // expected now and then; retried with backoff
		}
		r.log.Log(ctx, level, "extraction failed", "tenant", rep.Scope.Tenant, "user", rep.Scope.User,
			"conversation", rep.ConversationID, "error", rep.Err)
	}
	if r.opts.Observer != nil {
		r.opts.Observer.Processed(rep)
	}
	return n
}

// byConversation splits claimed messages (grouped by the store) per conversation.
func byConversation(msgs []conversation.Message) [][]conversation.Message {
	var out [][]conversation.Message
	for i := 0; i < len(msgs); {
		j := i + 1
		for j < len(msgs) && msgs[j].Scope == msgs[i].Scope && msgs[j].ConversationID == msgs[i].ConversationID {
			j++
		}
		out = append(out, msgs[i:j])
		i = j
	}
	return out
}

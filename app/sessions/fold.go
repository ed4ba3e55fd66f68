package sessions

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"engram/domain/session"
	"engram/ports"
)

// Fold outcomes, as the observer and the metrics name them.
const (
	FoldDone     = "done"     // the new summary is written
	FoldFallback = "fallback" // written by the fallback summarizer after the primary failed
	FoldConflict = "conflict" // the session moved on (claim lost, summary changed); tried again later
	FoldFailed   = "failed"   // no summary could be made or written; tried again after the retry delay
	FoldSkipped  = "skipped"  // nothing to fold any more (deleted, expired, below the threshold)
)

// FoldObserver hears about every fold (metrics): the session's, its outcome, its
// time and what the summarizers cost (the model's calls and tokens, those of a
// failed attempt included).
type FoldObserver interface {
	Folded(ref session.Ref, outcome string, elapsed time.Duration, usage ports.LLMUsage)
}

// FolderOptions shape the folder.
type FolderOptions struct {
	Holder   string // this process, in claims
	Policy   session.Policy
	Lease    time.Duration // how long a claim holds; default 2 min
	Batch    int           // sessions claimed per store and pass; default 16
	Interval time.Duration // between passes in Run; default 5 s
	// SummaryTimeout bounds one summarizer call; default half the lease.
	SummaryTimeout time.Duration
	Logger         *slog.Logger
	Observer       FoldObserver
}

// Folder folds queued sessions off the request path (the scheduler role): claim,
// plan, summarize (previous summary + slice → new summary), apply with
// compare-and-swap. Several folders share the queue through the claims.
type Folder struct {
	stores     []ports.SessionFolds
	summarizer ports.Summarizer
	fallback   ports.Summarizer // when the summarizer fails; nil: none
	clock      ports.Clock
	opts       FolderOptions
	wake       chan struct{}
}

// NewFolder builds a folder over the stores sessions may be queued in (Redis and
// its SQL fallback: sessions recorded during an outage are folded there).
func NewFolder(stores []ports.SessionFolds, summarizer, fallback ports.Summarizer, clock ports.Clock, opts FolderOptions) *Folder {
	opts.Policy = opts.Policy.WithDefaults()
	if opts.Lease <= 0 {
		opts.Lease = 2 * time.Minute
	}
	if opts.Batch <= 0 {
		opts.Batch = 16
	}
	if opts.Interval <= 0 {
		opts.Interval = 5 * time.Second
	}
	if opts.SummaryTimeout <= 0 {
		opts.SummaryTimeout = opts.Lease / 2
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Folder{stores: stores, summarizer: summarizer, fallback: fallback, clock: clock, opts: opts, wake: make(chan struct{}, 1)}
}

// Notify asks for a pass now (a record in this process queued a session).
func (f *Folder) Notify() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// FoldDue makes one pass over every store and returns how many folds it applied.
// A store that cannot answer is skipped (Redis down: its sessions wait).
func (f *Folder) FoldDue(ctx context.Context) (int, error) {
	applied := 0
	var firstErr error
	for _, store := range f.stores {
		views, err := store.ClaimFolds(ctx, ports.FoldClaim{Holder: f.opts.Holder, Now: f.clock.Now(), Lease: f.opts.Lease, Limit: f.opts.Batch})
		if err != nil {
			if firstErr == nil && !errors.Is(err, ports.ErrUnavailable) {
				firstErr = err
			}
			continue
		}
		for _, v := range views {
			if f.foldOne(ctx, store, v) {
				applied++
			}
		}
	}
	return applied, firstErr
}

// foldOne folds one claimed session and always leaves the claim released or
// applied.
func (f *Folder) foldOne(ctx context.Context, store ports.SessionFolds, v session.View) bool {
	start := time.Now()
	plan, ok := f.opts.Policy.Plan(v)
	if !ok {
		f.release(ctx, store, v.Meta.Ref, time.Time{})
		f.observe(v.Meta.Ref, FoldSkipped, start, ports.LLMUsage{})
		return false
	}
	text, usage, outcome, err := f.summarize(ctx, plan)
	if err != nil {
		f.opts.Logger.WarnContext(ctx, "session fold: no summary; retrying later", "session", plan.Ref.String(), "error", err)
		f.release(ctx, store, plan.Ref, f.opts.Policy.RetryAt(f.clock.Now()))
		f.observe(plan.Ref, FoldFailed, start, usage)
		return false
	}
	err = store.ApplyFold(ctx, plan.Fold(text, f.opts.Holder, f.opts.Policy.Threshold, f.clock.Now()))
	switch {
	case err == nil:
		f.observe(plan.Ref, outcome, start, usage)
		return true
	case errors.Is(err, ports.ErrConflict):
		// The session moved on; fold it again from what it is now.
		f.release(ctx, store, plan.Ref, f.clock.Now())
		f.observe(plan.Ref, FoldConflict, start, usage)
	default:
		f.opts.Logger.WarnContext(ctx, "session fold: apply failed; retrying later", "session", plan.Ref.String(), "error", err)
		f.release(ctx, store, plan.Ref, f.opts.Policy.RetryAt(f.clock.Now()))
		f.observe(plan.Ref, FoldFailed, start, usage)
	}
	return false
}

// summarize asks the summarizer, then the fallback when it fails.
func (f *Folder) summarize(ctx context.Context, plan session.FoldPlan) (string, ports.LLMUsage, string, error) {
	in := ports.SummaryInput{Previous: plan.Previous, Messages: plan.Slice}
	sctx, cancel := context.WithTimeout(ctx, f.opts.SummaryTimeout)
	text, usage, err := f.summarizer.Summarize(sctx, in)
	cancel()
	if err == nil {
		return text, usage, FoldDone, nil
	}
	if f.fallback == nil || ctx.Err() != nil {
		return "", usage, "", err
	}
	f.opts.Logger.WarnContext(ctx, "session fold: the summarizer failed; the offline summarizer writes this fold", "session", plan.Ref.String(), "error", err)
	text, more, ferr := f.fallback.Summarize(ctx, in)
	usage.Calls += more.Calls
	if ferr != nil {
		return "", usage, "", errors.Join(err, ferr)
	}
	return text, usage, FoldFallback, nil
}

func (f *Folder) release(ctx context.Context, store ports.SessionFolds, ref session.Ref, retryAt time.Time) {
	if err := store.ReleaseFold(ctx, ref, f.opts.Holder, retryAt); err != nil && ctx.Err() == nil {
		// The claim lapses by itself; the session is folded after the lease.
		f.opts.Logger.WarnContext(ctx, "session fold: release failed", "session", ref.String(), "error", err)
	}
}

func (f *Folder) observe(ref session.Ref, outcome string, start time.Time, usage ports.LLMUsage) {
	if f.opts.Observer != nil {
		f.opts.Observer.Folded(ref, outcome, time.Since(start), usage)
	}
}

// Run folds every Interval, and at once when notified, until ctx ends.
func (f *Folder) Run(ctx context.Context) {
	t := time.NewTicker(f.opts.Interval)
	defer t.Stop()
	for {
		for {
			n, err := f.FoldDue(ctx)
			if err != nil && ctx.Err() == nil {
				f.opts.Logger.WarnContext(ctx, "session folds: pass failed; retrying at the next interval", "error", err)
			}
			if n < f.opts.Batch || err != nil {
				break // a full batch may have left more behind
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-f.wake:
		}
	}
}

package profiles

import (
	"context"
	"log/slog"
	"time"

	"engram/app/runloop"
	"engram/ports"
)

// Defaults of RefresherOptions.
const (
	DefaultRefreshPoll  = 2 * time.Second
	DefaultRefreshLease = 5 * time.Minute
	DefaultRefreshBatch = 16
)

// RefresherOptions shape the refresh loop.
type RefresherOptions struct {
	Worker       string        // this process's claim name
	PollInterval time.Duration // how often due refreshes are looked for
	// Lease is how long a claim lasts: a refresh that fails or whose worker dies
	// is retried after it.
	Lease  time.Duration
	Batch  int // refreshes claimed at once
	Logger *slog.Logger
}

// Refresher is the worker role's profile loop: it claims users whose refresh is
// due and derives their profiles again.
type Refresher struct {
	svc  *Service
	opts RefresherOptions
}

// NewRefresher builds the loop over the service.
func NewRefresher(svc *Service, opts RefresherOptions) *Refresher {
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultRefreshPoll
	}
	if opts.Lease <= 0 {
		opts.Lease = DefaultRefreshLease
	}
	if opts.Batch <= 0 {
		opts.Batch = DefaultRefreshBatch
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Refresher{svc: svc, opts: opts}
}

// Tick refreshes every profile that is due now and returns how many it refreshed.
// A failed refresh keeps its mark and is retried once its lease lapses.
func (r *Refresher) Tick(ctx context.Context) (int, error) {
	done := 0
	for ctx.Err() == nil {
		claimed, err := r.svc.deps.Refreshes.ClaimStaleProfiles(ctx, r.opts.Worker, r.svc.deps.Clock.Now(), r.opts.Lease, r.opts.Batch)
		if err != nil {
			return done, err
		}
		for _, sp := range claimed {
			if r.refresh(ctx, sp) {
				done++
			}
		}
		if len(claimed) < r.opts.Batch {
			return done, nil
		}
	}
	return done, ctx.Err()
}

func (r *Refresher) refresh(ctx context.Context, sp ports.StaleProfile) bool {
	if err := r.svc.Refresh(ctx, sp.Scope); err != nil {
		if ctx.Err() == nil {
			r.opts.Logger.Warn("profile refresh failed; retried after the lease", "tenant", sp.Scope.Tenant, "user", sp.Scope.User, "error", err)
		}
		return false
	}
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := r.svc.deps.Refreshes.FinishProfileRefresh(fctx, r.opts.Worker, sp); err != nil {
		r.opts.Logger.Warn("finishing a profile refresh failed; it runs again after the lease", "user", sp.Scope.User, "error", err)
	}
	return true
}

// Run ticks every PollInterval until ctx ends.
func (r *Refresher) Run(ctx context.Context) {
	runloop.Every(ctx, r.opts.PollInterval, func(ctx context.Context) {
		if _, err := r.Tick(ctx); err != nil && ctx.Err() == nil {
			r.opts.Logger.Warn("claiming profile refreshes failed; retrying at the next poll", "error", err)
		}
	})
}

package sessions

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"engram/app/runloop"
	"engram/domain/memory"
	"engram/domain/session"
	"engram/ports"
)

// Primary is the preferred session store (Redis): a store that can be probed and
// can take whole sessions in.
type Primary interface {
	ports.SessionStore
	ports.SessionImporter
	ports.UserActivity
	Ping(ctx context.Context) error
}

// Secondary is the store that serves while the primary cannot (SQL), and gives
// its sessions back once the primary answers again.
type Secondary interface {
	ports.SessionStore
	ports.SessionExporter
	ports.UserActivity
}

// FailoverObserver hears about the fallback (metrics).
type FailoverObserver interface {
	// Fallback: a call of op was served by the secondary because the primary
	// could not answer.
	Fallback(op string)
	// PrimaryUp reports the primary's state when it changes.
	PrimaryUp(up bool)
	// Drained counts sessions moved back to the primary.
	Drained(n int)
}

// FailoverOptions shape the fallback.
type FailoverOptions struct {
	// Timeout bounds each call to the primary; past it the call is served by the
	// secondary. Default 250 ms.
	Timeout time.Duration
	// ProbeInterval is how often Run pings a primary marked down, and how often it
	// looks for sessions left in the secondary. Default 1 s.
	ProbeInterval time.Duration
	// DrainBatch is how many sessions one drain step moves. Default 100.
	DrainBatch int
	// PrimaryRelays: the primary queues each turn for the extraction channel with
	// its append (see Relaying); the secondary never does.
	PrimaryRelays bool
	Logger        *slog.Logger
	Observer      FailoverObserver
}

// Failover is the session store the use cases see when Redis is configured: Redis
// first, SQL when Redis cannot answer, so no record or read fails for it.
//
// While the primary is down every call goes to the secondary (probed every
// ProbeInterval by Run, not by requests). When it answers again, new writes go to
// it, and Run moves the sessions the secondary recorded meanwhile into it: each
// session is merged with what the primary holds of it (session.MergeStates: every
// message once, in time order, both summaries kept), written with
// compare-and-swap, then removed from the secondary at the revision it was read.
// Until the secondary is empty, reads read both stores and merge them, so a
// session is never seen without the turns recorded during the outage.
//
// Deleting a session and purging a user need both stores: while the primary is
// down they fail with ports.ErrUnavailable (a retry succeeds once it is back),
// because what Redis holds cannot be deleted without it.
type Failover struct {
	primary   Primary
	secondary Secondary
	opts      FailoverOptions
	down      atomic.Bool
	pending   atomic.Bool  // the secondary may hold sessions: reads merge both
	fallbacks atomic.Int64 // writes served by the secondary, counted after each
}

var _ ports.SessionStore = (*Failover)(nil)

// NewFailover builds the fallback store.
func NewFailover(primary Primary, secondary Secondary, opts FailoverOptions) *Failover {
	if opts.Timeout <= 0 {
		opts.Timeout = 250 * time.Millisecond
	}
	if opts.ProbeInterval <= 0 {
		opts.ProbeInterval = time.Second
	}
	if opts.DrainBatch <= 0 {
		opts.DrainBatch = 100
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	f := &Failover{primary: primary, secondary: secondary, opts: opts}
	f.pending.Store(true) // until Run has looked
	return f
}

// RelaysTurns implements Relaying: while the primary serves, it queues turns.
func (f *Failover) RelaysTurns() bool { return f.opts.PrimaryRelays && !f.down.Load() }

// PrimaryDown reports whether calls currently go to the secondary.
func (f *Failover) PrimaryDown() bool { return f.down.Load() }

// Check is the primary's readiness: down while calls go to the secondary, else
// whatever a ping says.
func (f *Failover) Check(ctx context.Context) error {
	if f.down.Load() {
		return fmt.Errorf("sessions: redis is down, sessions are served by SQL: %w", ports.ErrUnavailable)
	}
	return f.primary.Ping(ctx)
}

// onPrimary runs call on the primary unless it is down; it reports false when
// the caller must use the secondary.
func onPrimary[T any](f *Failover, ctx context.Context, op string, call func(ctx context.Context) (T, error)) (T, bool, error) {
	var zero T
	if f.down.Load() {
		f.fallback(op)
		return zero, false, nil
	}
	pctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	v, err := call(pctx)
	cancel()
	if err != nil && ctx.Err() == nil && (errors.Is(err, ports.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded)) {
		f.markDown(err)
		f.fallback(op)
		return zero, false, nil
	}
	return v, true, err
}

func (f *Failover) markDown(err error) {
	if !f.down.Swap(true) {
		f.opts.Logger.Warn("sessions: redis cannot answer; serving sessions from SQL until it is back", "error", err)
		if f.opts.Observer != nil {
			f.opts.Observer.PrimaryUp(false)
		}
	}
}

func (f *Failover) fallback(op string) {
	if f.opts.Observer != nil {
		f.opts.Observer.Fallback(op)
	}
}

// AppendExchange records on the primary, or on the secondary when it cannot.
func (f *Failover) AppendExchange(ctx context.Context, a ports.SessionAppend) (ports.SessionAppended, error) {
	out, ok, err := onPrimary(f, ctx, "append", func(ctx context.Context) (ports.SessionAppended, error) {
		return f.primary.AppendExchange(ctx, a)
	})
	if ok {
		return out, err
	}
	f.pending.Store(true)
	out, err = f.secondary.AppendExchange(ctx, a)
	f.fallbacks.Add(1)
	return out, err
}

// Session reads the primary (merged with the secondary while it holds sessions),
// or the secondary alone when the primary cannot answer.
func (f *Failover) Session(ctx context.Context, ref session.Ref, limit int) (session.View, error) {
	v, ok, err := onPrimary(f, ctx, "read", func(ctx context.Context) (session.View, error) {
		return f.primary.Session(ctx, ref, limit)
	})
	if !ok {
		return f.secondary.Session(ctx, ref, limit)
	}
	if err != nil && !errors.Is(err, ports.ErrNotFound) || !f.pending.Load() {
		return v, err
	}
	w, werr := f.secondary.Session(ctx, ref, limit)
	switch {
	case errors.Is(werr, ports.ErrNotFound):
		return v, err
	case werr != nil:
		return session.View{}, werr
	}
	merged := session.MergeViews(v, w)
	if limit > 0 && len(merged.Messages) > limit {
		merged.Messages = merged.Messages[len(merged.Messages)-limit:]
	}
	return merged, nil
}

// Sessions lists from the primary (with the secondary's sessions while it holds
// some), or from the secondary when the primary cannot answer.
func (f *Failover) Sessions(ctx context.Context, scope memory.Scope, q ports.SessionQuery) ([]session.Meta, error) {
	list, ok, err := onPrimary(f, ctx, "list", func(ctx context.Context) ([]session.Meta, error) {
		return f.primary.Sessions(ctx, scope, q)
	})
	if !ok {
		return f.secondary.Sessions(ctx, scope, q)
	}
	if err != nil || !f.pending.Load() {
		return list, err
	}
	more, err := f.secondary.Sessions(ctx, scope, q)
	if err != nil {
		return nil, err
	}
	return mergeListings(list, more, q.Limit), nil
}

// mergeListings joins two listings, one entry per session (merged metas), the
// most recently active first.
func mergeListings(a, b []session.Meta, limit int) []session.Meta {
	byRef := make(map[session.Ref]session.Meta, len(a)+len(b))
	for _, m := range a {
		byRef[m.Ref] = m
	}
	for _, m := range b {
		if prev, ok := byRef[m.Ref]; ok {
			held := prev.Held + m.Held
			m = session.MergeViews(session.View{Meta: prev}, session.View{Meta: m}).Meta
			m.Held = held
		}
		byRef[m.Ref] = m
	}
	out := make([]session.Meta, 0, len(byRef))
	for _, m := range byRef {
		out = append(out, m)
	}
	slices.SortFunc(out, func(x, y session.Meta) int {
		return cmp.Or(y.LastActiveAt.Compare(x.LastActiveAt), strings.Compare(x.Ref.FlowID, y.Ref.FlowID),
			strings.Compare(x.Ref.SessionID, y.Ref.SessionID))
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// DeleteSession deletes from both stores; it needs the primary.
func (f *Failover) DeleteSession(ctx context.Context, ref session.Ref) error {
	if f.down.Load() {
		return fmt.Errorf("sessions: delete %s: redis is down and still holds it; retry shortly: %w", ref, ports.ErrUnavailable)
	}
	errP := f.primary.DeleteSession(ctx, ref)
	errS := f.secondary.DeleteSession(ctx, ref)
	switch {
	case errP != nil && !errors.Is(errP, ports.ErrNotFound):
		return errP
	case errS != nil && !errors.Is(errS, ports.ErrNotFound):
		return errS
	case errP != nil && errS != nil:
		return errP // not found in either
	}
	return nil
}

// PurgeUser purges both stores; it needs the primary.
func (f *Failover) PurgeUser(ctx context.Context, scope memory.Scope) (map[string]int64, error) {
	if f.down.Load() {
		return nil, fmt.Errorf("sessions: purge: redis is down and still holds the user's sessions; retry shortly: %w", ports.ErrUnavailable)
	}
	a, err := f.primary.PurgeUser(ctx, scope)
	if err != nil {
		return nil, err
	}
	b, err := f.secondary.PurgeUser(ctx, scope)
	for k, v := range b {
		a[k] += v
	}
	return a, err
}

// Run probes the primary while it is down and, while it is up, moves what the
// secondary holds back to it, every ProbeInterval, until ctx ends. Looking at the
// secondary every time (one indexed query) also finds sessions another process
// recorded there during its own view of an outage.
func (f *Failover) Run(ctx context.Context) { runloop.Every(ctx, f.opts.ProbeInterval, f.Step) }

// Step is one turn of Run: probe a primary marked down; with the primary up,
// move sessions left in the secondary back to it. Reads stop merging once the
// secondary is found empty and no write reached it since.
func (f *Failover) Step(ctx context.Context) {
	if f.down.Load() {
		pctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
		err := f.primary.Ping(pctx)
		cancel()
		if err != nil {
			return
		}
		f.down.Store(false)
		f.opts.Logger.Info("sessions: redis answers again; new turns go to redis, sessions recorded meanwhile are moved back")
		if f.opts.Observer != nil {
			f.opts.Observer.PrimaryUp(true)
		}
	}
	before := f.fallbacks.Load()
	moved, remaining, err := f.drain(ctx)
	if moved > 0 && f.opts.Observer != nil {
		f.opts.Observer.Drained(moved)
	}
	switch {
	case err != nil:
		if ctx.Err() == nil {
			f.opts.Logger.Warn("sessions: moving SQL sessions back to redis stopped; retrying", "moved", moved, "error", err)
		}
	case remaining > 0:
		f.pending.Store(true)
	case f.fallbacks.Load() == before:
		if f.pending.Swap(false) && moved > 0 {
			f.opts.Logger.Info("sessions: every session recorded during the outage is back in redis", "moved", moved)
		}
	}
}

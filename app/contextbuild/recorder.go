package contextbuild

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"engram/domain/memory"
	"engram/domain/promptctx"
	"engram/ports"
)

// TraceRecorder writes traces off the request path: Record hands a trace over and
// returns; a loop (Run) writes what was handed over in batches, one transaction
// each. Until a trace is written it is read from the recorder itself, so a trace
// is readable the moment the context call that made it returns — by this process;
// another process reads it once it is written, typically milliseconds later.
//
// When the queue is full, Record writes the trace itself (the call waits rather
// than a trace being lost). A failed batch is tried again after a pause, its
// traces still readable from the recorder. Stopping writes what is queued.
type TraceRecorder struct {
	store ports.TraceStore
	opts  RecorderOptions
	queue chan promptctx.Trace

	// writing is held while a batch is written, and by an erasure of traces
	// (TraceEraser) from its change of the pending traces to the end of its change
	// of the stored ones: a batch is thus written before the erasure (which then
	// finds it stored) or after (and it then carries the erasure's change).
	writing sync.Mutex

	mu        sync.Mutex
	pending   map[string]promptctx.Trace // handed over, not yet written, by id
	latest    map[memory.Scope]string    // the newest pending trace of each user
	forgotten map[string]bool            // queued traces of users purged since: never written
}

// RecorderOptions shape the recorder.
type RecorderOptions struct {
	Queue      int           // traces waiting to be written; default 1024
	Batch      int           // traces per write; default 64
	RetryDelay time.Duration // after a failed write; default 1 s
	Logger     *slog.Logger
}

// NewTraceRecorder builds a recorder over store.
func NewTraceRecorder(store ports.TraceStore, opts RecorderOptions) *TraceRecorder {
	if opts.Queue <= 0 {
		opts.Queue = 1024
	}
	if opts.Batch <= 0 {
		opts.Batch = 64
	}
	if opts.RetryDelay <= 0 {
		opts.RetryDelay = time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &TraceRecorder{store: store, opts: opts, queue: make(chan promptctx.Trace, opts.Queue),
		pending: map[string]promptctx.Trace{}, latest: map[memory.Scope]string{}, forgotten: map[string]bool{}}
}

// Record hands the trace over to be written; with the queue full, it writes it.
func (r *TraceRecorder) Record(ctx context.Context, t promptctx.Trace) error {
	r.hold(t)
	select {
	case r.queue <- t:
		return nil
	default:
	}
	r.writing.Lock()
	defer r.writing.Unlock()
	batch := r.remembered([]promptctx.Trace{t})
	if len(batch) == 0 {
		return nil
	}
	err := r.store.SaveTraces(ctx, batch)
	if err == nil {
		r.release(batch)
	}
	return err
}

// Run writes the queued traces until ctx ends, then writes what is still queued
// (for at most a few seconds).
func (r *TraceRecorder) Run(ctx context.Context) {
	for {
		select {
		case t := <-r.queue:
			r.write(ctx, r.batch(t))
		case <-ctx.Done():
			r.drain()
			return
		}
	}
}

// batch is t and whatever else is queued, up to Batch.
func (r *TraceRecorder) batch(t promptctx.Trace) []promptctx.Trace {
	out := []promptctx.Trace{t}
	for len(out) < r.opts.Batch {
		select {
		case next := <-r.queue:
			out = append(out, next)
		default:
			return out
		}
	}
	return out
}

// write stores a batch, trying again after RetryDelay until it lands or ctx ends.
func (r *TraceRecorder) write(ctx context.Context, batch []promptctx.Trace) {
	r.writing.Lock()
	defer r.writing.Unlock()
	if batch = r.remembered(batch); len(batch) == 0 {
		return
	}
	for {
		err := r.store.SaveTraces(ctx, batch)
		if err == nil {
			r.release(batch)
			return
		}
		if ctx.Err() != nil {
			r.requeue(batch)
			return
		}
		r.opts.Logger.WarnContext(ctx, "traces: write failed; trying again", "traces", len(batch), "error", err)
		select {
		case <-time.After(r.opts.RetryDelay):
		case <-ctx.Done():
			r.requeue(batch)
			return
		}
	}
}

// requeue puts a batch back for the final drain.
func (r *TraceRecorder) requeue(batch []promptctx.Trace) {
	for _, t := range batch {
		select {
		case r.queue <- t:
		default:
			r.opts.Logger.Warn("traces: dropped at shutdown, the queue is full", "trace", t.ID)
		}
	}
}

// drain writes what is queued when the recorder stops.
func (r *TraceRecorder) drain() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for {
		select {
		case t := <-r.queue:
			r.drainOne(ctx, r.batch(t))
		default:
			return
		}
	}
}

func (r *TraceRecorder) drainOne(ctx context.Context, batch []promptctx.Trace) {
	r.writing.Lock()
	defer r.writing.Unlock()
	if batch = r.remembered(batch); len(batch) == 0 {
		return
	}
	if err := r.store.SaveTraces(ctx, batch); err != nil {
		r.opts.Logger.Warn("traces: not written at shutdown", "traces", len(batch), "error", err)
		return
	}
	r.release(batch)
}

// remembered leaves out the traces a purge forgot, and takes the pending version
// of the others: an erasure of traces may have changed it since it was queued.
func (r *TraceRecorder) remembered(batch []promptctx.Trace) []promptctx.Trace {
	r.mu.Lock()
	defer r.mu.Unlock()
	kept := batch[:0]
	for _, t := range batch {
		if r.forgotten[t.ID] {
			delete(r.forgotten, t.ID)
			continue
		}
		if held, ok := r.pending[t.ID]; ok {
			t = held
		}
		kept = append(kept, t)
	}
	return kept
}

func (r *TraceRecorder) hold(t promptctx.Trace) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending[t.ID] = t
	if t.ID > r.latest[t.Scope] {
		r.latest[t.Scope] = t.ID
	}
}

func (r *TraceRecorder) release(batch []promptctx.Trace) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range batch {
		delete(r.pending, t.ID)
		delete(r.forgotten, t.ID)
		if r.latest[t.Scope] == t.ID {
			delete(r.latest, t.Scope)
		}
	}
}

// Trace reads a trace: from the recorder while it is not written yet.
func (r *TraceRecorder) Trace(ctx context.Context, tenant, id string) (promptctx.Trace, error) {
	r.mu.Lock()
	t, ok := r.pending[id]
	r.mu.Unlock()
	if ok && t.Scope.Tenant == tenant {
		return t, nil
	}
	return r.store.Trace(ctx, tenant, id)
}

// LatestTrace reads the user's newest trace, written or not.
func (r *TraceRecorder) LatestTrace(ctx context.Context, scope memory.Scope) (promptctx.Trace, error) {
	r.mu.Lock()
	t, held := r.pending[r.latest[scope]]
	r.mu.Unlock()
	stored, err := r.store.LatestTrace(ctx, scope)
	switch {
	case err != nil && !(held && errors.Is(err, ports.ErrNotFound)):
		return promptctx.Trace{}, err
	case held && t.ID > stored.ID:
		return t, nil
	}
	return stored, nil
}

// ListTraces reads a page of the user's traces, written or not: those still
// held join the stored ones in id order.
func (r *TraceRecorder) ListTraces(ctx context.Context, scope memory.Scope, before string, limit int) ([]promptctx.Trace, error) {
	r.mu.Lock()
	var held []promptctx.Trace
	for _, t := range r.pending {
		if t.Scope == scope && (before == "" || t.ID < before) {
			held = append(held, t)
		}
	}
	r.mu.Unlock()
	stored, err := r.store.ListTraces(ctx, scope, before, limit)
	if err != nil {
		return nil, err
	}
	// A trace may be both held and stored while its batch is being released.
	all := stored
	for _, t := range held {
		if !slices.ContainsFunc(stored, func(s promptctx.Trace) bool { return s.ID == t.ID }) {
			all = append(all, t)
		}
	}
	slices.SortFunc(all, func(a, b promptctx.Trace) int { return strings.Compare(b.ID, a.ID) })
	return all[:min(len(all), max(limit, 0))], nil
}

// PurgeUser forgets the user's traces not yet written, then purges the stored
// ones (the erasure's step). A batch being written as the erasure began is
// refused by the store's erasure guard.
func (r *TraceRecorder) PurgeUser(ctx context.Context, scope memory.Scope) (map[string]int64, error) {
	r.mu.Lock()
	for id, t := range r.pending {
		if t.Scope == scope {
			delete(r.pending, id)
			r.forgotten[id] = true
		}
	}
	delete(r.latest, scope)
	r.mu.Unlock()
	return r.store.PurgeUser(ctx, scope)
}

// Pending counts the traces not yet written (a gauge).
func (r *TraceRecorder) Pending() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pending)
}

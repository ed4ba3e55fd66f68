package retrieval

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// Defaults of AccessOptions.
const (
	DefaultAccessFlushInterval = time.Second
	DefaultAccessQueue         = 4096
	DefaultAccessBatch         = 1000
)

// AccessOptions shape the last-access recorder.
type AccessOptions struct {
	FlushInterval time.Duration // how long reads are gathered before one write
	Queue         int           // reads waiting to be gathered; more are dropped
	Batch         int           // memories per write
	Logger        *slog.Logger
}

// AccessTracker records which memories searches returned (last_accessed_at) off the
// request path: Record only queues, and a background loop writes the gathered
// reads in one statement per tenant and interval. It is best effort by design: a
// full queue drops reads rather than slow a search, and a failed write is logged
// and forgotten. last_accessed_at feeds consolidation and reporting, not ranking.
type AccessTracker struct {
	writer AccessWriter
	opts   AccessOptions
	queue  chan accessRead
	done   chan struct{}
}

type accessRead struct {
	tenant string
	ids    []string
	at     time.Time
}

// NewAccessTracker builds a tracker; call Run to start writing.
func NewAccessTracker(writer AccessWriter, opts AccessOptions) *AccessTracker {
	if opts.FlushInterval <= 0 {
		opts.FlushInterval = DefaultAccessFlushInterval
	}
	if opts.Queue <= 0 {
		opts.Queue = DefaultAccessQueue
	}
	if opts.Batch <= 0 {
		opts.Batch = DefaultAccessBatch
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &AccessTracker{writer: writer, opts: opts, queue: make(chan accessRead, opts.Queue), done: make(chan struct{})}
}

// Record queues a read of the tenant's memories; it never blocks.
func (a *AccessTracker) Record(tenant string, ids []string, at time.Time) {
	if a == nil || len(ids) == 0 {
		return
	}
	select {
	case a.queue <- accessRead{tenant: tenant, ids: ids, at: at}:
	default: // full: drop, the search matters more
	}
}

// Run writes gathered reads every FlushInterval until ctx ends, then writes what
// is left (with a short deadline of its own) and returns.
func (a *AccessTracker) Run(ctx context.Context) {
	defer close(a.done)
	tick := time.NewTicker(a.opts.FlushInterval)
	defer tick.Stop()
	pending := map[string]map[string]time.Time{} // tenant → memory id → latest read
	gather := func(r accessRead) {
		ids := pending[r.tenant]
		if ids == nil {
			ids = map[string]time.Time{}
			pending[r.tenant] = ids
		}
		for _, id := range r.ids {
			if r.at.After(ids[id]) {
				ids[id] = r.at
			}
		}
	}
	for {
		select {
		case r := <-a.queue:
			gather(r)
		case <-tick.C:
			a.flush(ctx, pending)
			clear(pending)
		case <-ctx.Done():
		drain:
			for {
				select {
				case r := <-a.queue:
					gather(r)
				default:
					break drain
				}
			}
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			a.flush(fctx, pending)
			cancel()
			return
		}
	}
}

// Done is closed when Run has returned.
func (a *AccessTracker) Done() <-chan struct{} { return a.done }

// flush writes one statement per tenant and batch, each with the latest read time
// of its memories (reads within one interval differ by less than it).
func (a *AccessTracker) flush(ctx context.Context, pending map[string]map[string]time.Time) {
	for tenant, reads := range pending {
		ids := make([]string, 0, len(reads))
		var latest time.Time
		for id, at := range reads {
			ids = append(ids, id)
			if at.After(latest) {
				latest = at
			}
		}
		for start := 0; start < len(ids); start += a.opts.Batch {
			err := a.writer.TouchMemories(ctx, tenant, ids[start:min(start+a.opts.Batch, len(ids))], latest)
			if err != nil && !errors.Is(err, context.Canceled) {
				a.opts.Logger.Warn("last access not recorded", "tenant", tenant, "memories", len(ids), "error", err)
			}
		}
	}
}

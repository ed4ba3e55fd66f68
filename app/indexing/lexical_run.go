package indexing

import (
	"context"
	"errors"
	"time"
)

// Run runs the message pass every MessageInterval and the repair pass every
// RepairInterval (the first at once) until ctx ends. Failures are logged and
// retried at the next tick.
func (ix *LexicalIndexer) Run(ctx context.Context) {
	messages := time.NewTicker(ix.opts.MessageInterval)
	defer messages.Stop()
	repair := time.NewTicker(ix.opts.RepairInterval)
	defer repair.Stop()
	ix.runRepair(ctx)
	for {
		select {
		case <-ctx.Done():
			ix.releaseCursor(ctx)
			return
		case <-messages.C:
			if _, err := ix.IndexMessages(ctx); err != nil && !errors.Is(err, context.Canceled) {
				ix.opts.Logger.Warn("lexical index: message pass failed; retrying", "error", err)
			}
		case <-repair.C:
			ix.runRepair(ctx)
		}
	}
}

// runRepair runs the repair pass; what its batches did goes to the observer.
func (ix *LexicalIndexer) runRepair(ctx context.Context) {
	if _, err := ix.RepairMemories(ctx); err != nil && !errors.Is(err, context.Canceled) {
		ix.opts.Logger.Warn("lexical index: repair pass failed; retrying", "error", err)
	}
}

// releaseCursor gives the message pass's lease back on shutdown, so the next
// process (a restart) runs the pass at once instead of waiting for the lease.
func (ix *LexicalIndexer) releaseCursor(ctx context.Context) {
	if ix.messages == nil {
		return
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := ix.cursors.Release(rctx, LexicalMessagesCursor, ix.opts.Holder); err != nil {
		ix.opts.Logger.Warn("lexical index: releasing the message pass's lease failed; it lapses by itself", "lease", ix.opts.CursorLease, "error", err)
	}
}

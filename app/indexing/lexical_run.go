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

func (ix *LexicalIndexer) runRepair(ctx context.Context) {
	n, err := ix.RepairMemories(ctx)
	if err != nil && !errors.Is(err, context.Canceled) {
		ix.opts.Logger.Warn("lexical index: repair pass failed; retrying", "error", err)
	}
	if n > 0 {
		ix.opts.Logger.Info("lexical index: repaired memory documents", "count", n)
	}
}

package runloop

import (
	"context"
	"log/slog"
	"time"
)

// Batches calls remove with limit batch until a call removes fewer, and returns
// the total: a sweep that never holds a store's writer for long.
func Batches(ctx context.Context, batch int, remove func(ctx context.Context, limit int) (int64, error)) (int64, error) {
	var total int64
	for {
		n, err := remove(ctx, batch)
		total += n
		if err != nil || n < int64(batch) {
			return total, err
		}
	}
}

// Sweep runs sweep every interval until ctx ends, logging what it removed; a
// failed sweep is tried again at the next interval (reads hide what it missed).
func Sweep(ctx context.Context, interval time.Duration, log *slog.Logger, what string, sweep func(ctx context.Context) (int64, error)) {
	Every(ctx, interval, func(ctx context.Context) {
		n, err := sweep(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			log.WarnContext(ctx, what+" failed; retrying at the next interval", "error", err, "swept", n)
		case n > 0:
			log.InfoContext(ctx, what, "swept", n)
		}
	})
}

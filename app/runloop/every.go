package runloop

import (
	"context"
	"time"
)

// Every runs fn at once and then every interval, until ctx ends. A run that takes
// longer than the interval is followed by the next at once, never by two.
func Every(ctx context.Context, interval time.Duration, fn func(ctx context.Context)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		fn(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

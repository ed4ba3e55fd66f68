package bootstrap

import (
	"context"

	"go.uber.org/fx"
)

// runWhileUp runs run in a goroutine while the app is up: started with the app,
// its context cancelled when the app stops, and waited for until fx's stop
// deadline. For loops that end when their context does (Run(ctx) methods).
func runWhileUp(lc fx.Lifecycle, run func(ctx context.Context)) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			go func() { defer close(done); run(ctx) }()
			return nil
		},
		OnStop: func(stop context.Context) error {
			cancel()
			select {
			case <-done:
			case <-stop.Done():
			}
			return nil
		},
	})
}

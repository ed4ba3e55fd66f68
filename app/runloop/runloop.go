// Package runloop is the start/stop discipline of the background loops of the
// worker, indexer and scheduler roles: Start returns at once; Stop asks the loop to
// end, lets the work in flight finish until Stop's context ends, and then cancels
// it. It depends on the standard library only.
package runloop

import (
	"context"
	"sync"
)

// Loop runs one function in the background. The zero value is ready to use; a
// Loop runs once.
type Loop struct {
	mu      sync.Mutex
	started bool
	stop    chan struct{}
	done    chan struct{}
	cancel  context.CancelFunc
}

// Start runs run in a goroutine with a context that Stop cancels when its own
// context ends first. run should return soon after Stopping reports true. A second
// Start does nothing.
func (l *Loop) Start(run func(ctx context.Context)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.started {
		return
	}
	l.started = true
	l.stop, l.done = make(chan struct{}), make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	go func() {
		defer close(l.done)
		run(ctx)
	}()
}

// Stop asks the loop to end and waits for it. When ctx ends first, the loop's
// context is cancelled, Stop still waits for run to return, and ctx's error comes
// back: the work in flight was cut short.
func (l *Loop) Stop(ctx context.Context) error {
	l.mu.Lock()
	if !l.started {
		l.mu.Unlock()
		return nil
	}
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	l.mu.Unlock()
	select {
	case <-l.done:
		l.cancel()
		return nil
	case <-ctx.Done():
		l.cancel()
		<-l.done
		return ctx.Err()
	}
}

// Stopping reports whether Stop has been called.
func (l *Loop) Stopping() bool {
	select {
	case <-l.Stopped():
		return true
	default:
		return false
	}
}

// Stopped is closed when Stop is called, for a loop's select while it waits; nil
// (never ready) before Start.
func (l *Loop) Stopped() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stop
}

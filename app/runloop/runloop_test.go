package runloop_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"engram/app/runloop"
)

func TestLoop_stopLetsTheWorkInFlightFinish(t *testing.T) {
	t.Parallel()
	var l runloop.Loop
	finished := make(chan struct{})
	l.Start(func(ctx context.Context) {
		<-l.Stopped()
		time.Sleep(10 * time.Millisecond) // the work in flight
		if ctx.Err() == nil {
			close(finished)
		}
	})
	if err := l.Stop(context.Background()); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	select {
	case <-finished:
	default:
		t.Fatal("the loop's context was cancelled although Stop could wait")
	}
	if !l.Stopping() {
		t.Error("Stopping is false after Stop")
	}
}

func TestLoop_stopCancelsWhenItsContextEnds(t *testing.T) {
	t.Parallel()
	var l runloop.Loop
	l.Start(func(ctx context.Context) { <-ctx.Done() }) // ignores Stopping
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := l.Stop(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Stop = %v, want the deadline", err)
	}
}

func TestLoop_zeroValueAndRepeats(t *testing.T) {
	t.Parallel()
	var l runloop.Loop
	if l.Stopping() || l.Stop(context.Background()) != nil {
		t.Fatal("an unstarted loop is not stopping and stops at once")
	}
	runs := 0
	l.Start(func(context.Context) { runs++ })
	l.Start(func(context.Context) { runs++ })
	_ = l.Stop(context.Background())
	_ = l.Stop(context.Background())
	if runs != 1 {
		t.Errorf("ran %d times, want once", runs)
	}
}

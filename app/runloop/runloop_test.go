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

func TestEvery_runsAtOnceThenEachIntervalUntilTheContextEnds(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	runs := make(chan struct{}, 10)
	done := make(chan struct{})
	go func() {
		defer close(done)
		runloop.Every(ctx, time.Millisecond, func(context.Context) { runs <- struct{}{} })
	}()
	for range 3 {
		select {
		case <-runs:
		case <-time.After(10 * time.Second):
			t.Fatal("fewer than 3 runs within 10s")
		}
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Every did not return within 10s of the cancel")
	}
}

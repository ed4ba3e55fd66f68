package runloop_test

import (
	"context"
	"errors"
	"testing"

	"engram/app/runloop"
)

func TestBatches_untilABatchIsShortOrFails(t *testing.T) {
	t.Parallel()
	left := int64(7)
	calls := 0
	n, err := runloop.Batches(context.Background(), 3, func(_ context.Context, limit int) (int64, error) {
		calls++
		took := min(left, int64(limit))
		left -= took
		return took, nil
	})
	if err != nil || n != 7 || calls != 3 {
		t.Errorf("removed %d in %d calls (%v), want 7 in 3", n, calls, err)
	}
	boom := errors.New("boom")
	n, err = runloop.Batches(context.Background(), 3, func(context.Context, int) (int64, error) { return 2, boom })
	if !errors.Is(err, boom) || n != 2 {
		t.Errorf("a failing batch: %d %v", n, err)
	}
}

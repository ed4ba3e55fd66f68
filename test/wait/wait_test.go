package wait

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestFor_returnsTrueOnceTheConditionHolds(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	if !For(10*time.Second, func() bool { return calls.Add(1) >= 3 }) {
		t.Fatal("For returned false for a condition that became true on the third poll")
	}
	if got := calls.Load(); got != 3 {
		t.Fatalf("condition polled %d times, want 3 (For must stop at the first true)", got)
	}
}

func TestFor_returnsFalseWhenTheLimitPasses(t *testing.T) {
	t.Parallel()
	if For(2*Poll, func() bool { return false }) {
		t.Fatal("For returned true for a condition that never holds")
	}
}

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

func TestRemaining_leavesTimeToReportBeforeTheTestDeadline(t *testing.T) {
	t.Parallel()
	got := Remaining(t)
	deadline, has := t.Deadline()
	if !has {
		if got != Patient {
			t.Fatalf("Remaining without a deadline = %s, want Patient (%s)", got, Patient)
		}
		return
	}
	if left := time.Until(deadline); got > left-reportMargin+time.Second || got < time.Second {
		t.Fatalf("Remaining = %s with %s left before the deadline", got, left)
	}
}

func TestRemaining_isPatientForABenchmarkOrFuzzTarget(t *testing.T) {
	t.Parallel()
	var tb testing.TB = &testing.B{}
	if got := Remaining(tb); got != Patient {
		t.Fatalf("Remaining(a testing.B) = %s, want Patient", got)
	}
}

// Package wait is the one way tests wait for something to become true: poll a
// condition until it holds, and fail the test, saying what was awaited, when it
// does not within the limit. Tests never sleep to prove that something happened
// (or did not): they wait on the condition itself.
package wait

import (
	"testing"
	"time"
)

// Poll is how often Until checks its condition.
const Poll = 50 * time.Millisecond

// Until polls cond every Poll until it returns true, and fails t with what was
// awaited when within passes first. The limit is a ceiling for a loaded machine,
// not an expected duration: a condition that holds returns at once.
func Until(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	if !For(within, cond) {
		t.Fatalf("timed out after %s waiting for %s", within, what)
	}
}

// For polls cond every Poll until it returns true (true) or within passes
// (false), for callers that report the failure themselves.
func For(within time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(Poll)
	}
	return true
}

// Patient is how long Remaining lets a test without a deadline wait.
const Patient = 10 * time.Minute

// reportMargin is what Remaining keeps of a test's deadline to report a failure
// before the test binary is killed.
const reportMargin = 30 * time.Second

// Remaining is the limit for waiting on background work whose pace depends on
// the load of the machine, not on the code (a worker's pass on a busy CI
// runner): what is left of the test binary's deadline (go test -timeout) less a
// margin to report the failure, or Patient for a test without one. Such a wait
// fails only when the test run would fail anyway.
func Remaining(t testing.TB) time.Duration {
	d, ok := t.(interface{ Deadline() (time.Time, bool) })
	if !ok {
		return Patient
	}
	deadline, has := d.Deadline()
	if !has {
		return Patient
	}
	return max(time.Until(deadline)-reportMargin, time.Second)
}

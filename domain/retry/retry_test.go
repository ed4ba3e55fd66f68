package retry_test

import (
	"testing"
	"time"

	"engram/domain/retry"
)

func TestDelay_doublesUpToTheCeiling(t *testing.T) {
	t.Parallel()
	p := retry.Policy{BaseDelay: 30 * time.Second, MaxDelay: 90 * time.Second}
	for _, tc := range []struct {
		attempts int
		want     time.Duration
	}{
		{0, 30 * time.Second}, // no failure counted yet: the base
		{1, 30 * time.Second},
		{2, time.Minute},
		{3, 90 * time.Second}, // 2 min capped
		{40, 90 * time.Second},
		{1 << 30, 90 * time.Second}, // the doubling overflows: still the ceiling
	} {
		if got := p.Delay(tc.attempts); got != tc.want {
			t.Errorf("Delay(%d) = %s, want %s", tc.attempts, got, tc.want)
		}
	}
	huge := retry.Policy{BaseDelay: time.Hour, MaxDelay: 1<<63 - 1}
	if got := huge.Delay(31); got != huge.MaxDelay {
		t.Errorf("an overflowing doubling gave %s, want the ceiling", got)
	}
}

func TestOr_fillsOnlyTheFieldsLeftOut(t *testing.T) {
	t.Parallel()
	defaults := retry.Policy{MaxAttempts: 5, BaseDelay: time.Second, MaxDelay: time.Minute}
	for _, tc := range []struct {
		name string
		in   retry.Policy
		want retry.Policy
	}{
		{"zero takes every default", retry.Policy{}, defaults},
		{"set fields stay", retry.Policy{MaxAttempts: 2, BaseDelay: time.Millisecond},
			retry.Policy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: time.Minute}},
		{"negative is left out", retry.Policy{MaxAttempts: -1, MaxDelay: -time.Second}, defaults},
	} {
		if got := tc.in.Or(defaults); got != tc.want {
			t.Errorf("%s: %+v.Or = %+v, want %+v", tc.name, tc.in, got, tc.want)
		}
	}
}

func TestRetries_stopsAtMaxAttemptsOrNever(t *testing.T) {
	t.Parallel()
	limited := retry.Policy{MaxAttempts: 3}
	for attempts, want := range []bool{true, true, true, false, false} {
		if got := limited.Retries(attempts); got != want {
			t.Errorf("MaxAttempts 3: Retries(%d) = %v, want %v", attempts, got, want)
		}
	}
	if !(retry.Policy{}).Retries(1000) {
		t.Error("MaxAttempts 0 stopped retrying")
	}
}

// Package retry is the backoff of work that failed and is tried again later
// (extraction of a message, a vector sync): how long to wait, and when to stop.
package retry

import "time"

// Policy is exponential backoff: BaseDelay after the first failure, doubled for
// each failure before it, never more than MaxDelay; MaxAttempts attempts in all,
// the first included (0: tried for as long as it fails). Each user states its own
// defaults and fills them in with Or.
type Policy struct {
	MaxAttempts int
	BaseDelay   time.Duration
	MaxDelay    time.Duration
}

// Or is p with each zero (or negative) field taken from defaults.
func (p Policy) Or(defaults Policy) Policy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = defaults.MaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = defaults.BaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = defaults.MaxDelay
	}
	return p
}

// Delay is the wait after the attempts-th consecutive failure: BaseDelay doubled
// for each failure before it, at most MaxDelay (MaxDelay too when the doubling
// overflows).
func (p Policy) Delay(attempts int) time.Duration {
	d := p.BaseDelay << min(max(attempts-1, 0), 30)
	if d <= 0 || d > p.MaxDelay {
		return p.MaxDelay
	}
	return d
}

// Retries reports whether another attempt follows the attempts-th failure.
func (p Policy) Retries(attempts int) bool {
	return p.MaxAttempts <= 0 || attempts < p.MaxAttempts
}

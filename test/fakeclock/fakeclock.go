// Package fakeclock is a settable ports.Clock for tests: time moves only when the
// test says so, so expiry, debounce and backoff can be tested without sleeping.
package fakeclock

import (
	"sync"
	"time"
)

// Clock is safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// New returns a clock reading start.
func New(start time.Time) *Clock { return &Clock{now: start} }

// Now implements ports.Clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Set puts the clock at t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

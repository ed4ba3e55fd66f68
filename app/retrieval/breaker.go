package retrieval

import (
	"sync"
	"time"

	"engram/ports"
)

// BreakerState is where the vector side's circuit breaker stands.
type BreakerState int

const (
	// BreakerClosed: vector calls are made.
	BreakerClosed BreakerState = iota
	// BreakerOpen: vector calls are skipped until the cooldown ends.
	BreakerOpen
	// BreakerHalfOpen: the cooldown ended; one request probes the vector side while
	// the others still skip it.
	BreakerHalfOpen
)

func (s BreakerState) String() string {
	switch s {
	case BreakerOpen:
		return "open"
	case BreakerHalfOpen:
		return "half_open"
	}
	return "closed"
}

// BreakerOptions are ENGRAM_VECTOR_BREAKER_FAILURES and _COOLDOWN_SEC.
type BreakerOptions struct {
	Failures int           // consecutive failures that open the breaker; 0: 5
	Cooldown time.Duration // open time before a probe; 0: 10 s
}

// breaker stops paying the vector timeout on every request while the vector store
// is down: after Failures consecutive failures it opens, and requests answer from
// lexical search at once; after Cooldown one request probes, and its success
// closes the breaker (its failure opens it for another cooldown).
type breaker struct {
	clock    ports.Clock
	failures int
	cooldown time.Duration

	mu       sync.Mutex
	state    BreakerState
	failed   int
	openedAt time.Time
	probing  bool
}

func newBreaker(clock ports.Clock, o BreakerOptions) *breaker {
	if o.Failures <= 0 {
		o.Failures = 5
	}
	if o.Cooldown <= 0 {
		o.Cooldown = 10 * time.Second
	}
	return &breaker{clock: clock, failures: o.Failures, cooldown: o.Cooldown}
}

// allow reports whether a vector call may be made now, and whether it is the probe.
func (b *breaker) allow() (ok, probe bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch b.state {
	case BreakerOpen:
		if b.clock.Now().Sub(b.openedAt) < b.cooldown {
			return false, false
		}
		b.state, b.probing = BreakerHalfOpen, true
		return true, true
	case BreakerHalfOpen:
		if b.probing {
			return false, false
		}
		b.probing = true
		return true, true
	}
	return true, false
}

// success records a vector call that answered in time.
func (b *breaker) success() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.state, b.failed, b.probing = BreakerClosed, 0, false
}

// failure records a vector call that failed or timed out.
func (b *breaker) failure() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failed++
	if b.state == BreakerHalfOpen || b.failed >= b.failures {
		b.state, b.openedAt, b.probing = BreakerOpen, b.clock.Now(), false
	}
}

// abandon records a call that ended for the caller's reasons (the client went
// away): it says nothing about the vector side, but a probe must be given back.
func (b *breaker) abandon(probe bool) {
	if !probe {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == BreakerHalfOpen {
		b.probing = false
	}
}

// State is the breaker's state now.
func (b *breaker) State() BreakerState {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == BreakerOpen && b.clock.Now().Sub(b.openedAt) >= b.cooldown {
		return BreakerHalfOpen // the next request probes
	}
	return b.state
}

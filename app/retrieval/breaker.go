package retrieval

import (
	"log/slog"
	"sync"
	"time"

	"engram/ports"
)

// BreakerState is where a circuit breaker of the vector side stands.
type BreakerState int

const (
	// BreakerClosed: calls are made.
	BreakerClosed BreakerState = iota
	// BreakerOpen: calls are skipped until the cooldown ends.
	BreakerOpen
	// BreakerHalfOpen: the cooldown ended; one request probes the dependency while
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

// breaker stops paying the vector timeout on every request while a dependency of
// the vector side (the vector store, a remote embedder) is down: after Failures
// consecutive failures it opens, and requests answer from lexical search at once;
// after Cooldown one request probes, and its success closes the breaker (its
// failure opens it for another cooldown). Only dependency failures count (see
// dependencyFailure); every transition is logged at WARN with its cause.
type breaker struct {
	dependency string // "vector index", "embedder": for the log
	clock      ports.Clock
	log        *slog.Logger
	failures   int
	cooldown   time.Duration

	mu       sync.Mutex
	state    BreakerState
	failed   int
	openedAt time.Time
	probing  bool
}

func newBreaker(dependency string, clock ports.Clock, log *slog.Logger, o BreakerOptions) *breaker {
	if o.Failures <= 0 {
		o.Failures = 5
	}
	if o.Cooldown <= 0 {
		o.Cooldown = 10 * time.Second
	}
	if log == nil {
		log = slog.Default()
	}
	return &breaker{dependency: dependency, clock: clock, log: log, failures: o.Failures, cooldown: o.Cooldown}
}

// allow reports whether a call may be made now, and whether it is the probe.
func (b *breaker) allow() (ok, probe bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch b.state {
	case BreakerOpen:
		if b.clock.Now().Sub(b.openedAt) < b.cooldown {
			return false, false
		}
		b.state, b.probing = BreakerHalfOpen, true
		b.log.Warn("vector breaker half-open: one search probes the "+b.dependency, "dependency", b.dependency,
			"cause", "cooldown over", "cooldown", b.cooldown)
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

// success records a call that answered in time.
func (b *breaker) success() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state != BreakerClosed {
		b.log.Warn("vector breaker closed: the "+b.dependency+" answers again", "dependency", b.dependency, "cause", "probe succeeded")
	}
	b.state, b.failed, b.probing = BreakerClosed, 0, false
}

// failure records a call that failed or timed out for the dependency's reasons.
func (b *breaker) failure(cause error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failed++
	switch {
	case b.state == BreakerHalfOpen:
		b.log.Warn("vector breaker open again: the probe of the "+b.dependency+" failed; search answers lexically",
			"dependency", b.dependency, "cause", cause.Error(), "cooldown", b.cooldown)
	case b.state == BreakerClosed && b.failed >= b.failures:
		b.log.Warn("vector breaker open: the "+b.dependency+" failed; search answers lexically until a probe succeeds",
			"dependency", b.dependency, "cause", cause.Error(), "consecutive_failures", b.failed, "cooldown", b.cooldown)
	default:
		return
	}
	b.state, b.openedAt, b.probing = BreakerOpen, b.clock.Now(), false
}

// release records a call that says nothing about the dependency (the client went
// away, or the request itself was unusable): a probe must be given back.
func (b *breaker) release(probe bool) {
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

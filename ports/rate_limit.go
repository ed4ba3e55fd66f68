package ports

import (
	"errors"
	"fmt"
	"time"
)

// RateLimitedError is an endpoint (an LLM, an embedder) asking its caller to slow
// down: HTTP 429, with the wait it asked for (Retry-After) or the adapter's own
// backoff when it named none. The caller waits instead of failing: work that
// needed the call is deferred, not counted as an attempt. It is ErrUnavailable
// under errors.Is.
type RateLimitedError struct {
	RetryAfter time.Duration // how long to wait before the next call; at least 1 s
	Cause      error         // what the adapter saw, for logs
}

func (e *RateLimitedError) Error() string {
	if e.Cause == nil {
		return fmt.Sprintf("rate limited: retry after %s", e.RetryAfter)
	}
	return fmt.Sprintf("rate limited: retry after %s: %v", e.RetryAfter, e.Cause)
}

// Is makes errors.Is(err, ErrUnavailable) true.
func (e *RateLimitedError) Is(target error) bool { return target == ErrUnavailable }

func (e *RateLimitedError) Unwrap() error { return e.Cause }

// AsRateLimited returns the RateLimitedError in err's chain, if any.
func AsRateLimited(err error) (*RateLimitedError, bool) {
	var rl *RateLimitedError
	if errors.As(err, &rl) {
		return rl, true
	}
	return nil, false
}

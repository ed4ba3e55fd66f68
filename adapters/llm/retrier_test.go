package llm

import (
	"context"
	"errors"
	"testing"
	"time"

	"engram/ports"
)

// try is what one attempt of an operation does, as the transport would have seen it.
type try struct {
	status     int    // the HTTP status that came back; 0 for none
	retryAfter string // its Retry-After header
	sent       bool   // the request reached the transport
	ok         bool   // the operation succeeded
	hang       bool   // the attempt waits for its timeout
	permanent  bool   // the operation says a retry cannot help
	cancel     bool   // the caller's context ends during the attempt
}

var errBoom = errors.New("boom")

// script runs the tries in order (the last one repeats) and counts them.
func script(cancel context.CancelFunc, tries ...try) (op func(ctx context.Context) error, count *int) {
	n := 0
	return func(ctx context.Context) error {
		t := tries[min(n, len(tries)-1)]
		n++
		if at, _ := ctx.Value(attemptKey{}).(*attempt); at != nil {
			at.mu.Lock()
			at.sent, at.status, at.retryAfter = t.sent || t.status != 0, t.status, t.retryAfter
			at.mu.Unlock()
		}
		switch {
		case t.ok:
			return nil
		case t.hang:
			<-ctx.Done()
			return ctx.Err()
		case t.permanent:
			return permanent(errBoom)
		case t.cancel:
			cancel()
		}
		return errBoom
	}, &n
}

// The retry rules decide, for each way an attempt can fail, whether to wait and try
// again and which error the caller gets: these cases pin every branch and message.
func TestRetrier_decidesPerFailure(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		maxRetries int
		maxDelay   time.Duration
		timeout    time.Duration
		deadline   time.Duration // 0: the caller's context has none
		cancelled  bool          // the caller's context has ended before the call
		sleepErr   error
		tries      []try
		attempts   int
		sleeps     int
		err        string        // "" for success
		rejected   bool          // errors.Is(err, ErrRejected)
		limited    time.Duration // the RateLimitedError's RetryAfter; 0: not rate limited
	}{
		{name: "success after transient failures", maxRetries: 3, tries: []try{{status: 503}, {status: 502}, {ok: true}}, attempts: 3, sleeps: 2},
		{name: "caller done before the first attempt", cancelled: true, tries: []try{{ok: true}}, attempts: 0,
			err: "llm: chat: unavailable: context canceled"},
		{name: "a permanent failure is returned as it is", maxRetries: 3, tries: []try{{permanent: true}}, attempts: 1, err: "boom"},
		{name: "a client error is a rejection", maxRetries: 3, tries: []try{{status: 400}}, attempts: 1, rejected: true,
			err: "llm: chat: unavailable: " + ErrRejected.Error() + ": HTTP 400: boom"},
		{name: "nothing sent: retrying changes nothing", maxRetries: 3, tries: []try{{}}, attempts: 1,
			err: "llm: chat: unavailable: boom"},
		{name: "a dropped connection is retried", maxRetries: 1, tries: []try{{sent: true}}, attempts: 2, sleeps: 1,
			err: "llm: chat: unavailable after 2 attempts: connection failed: boom"},
		{name: "an unreadable 200 is retried", maxRetries: 1, tries: []try{{status: 200}}, attempts: 2, sleeps: 1,
			err: "llm: chat: unavailable after 2 attempts: HTTP 200: boom"},
		{name: "an attempt past its timeout is retried", maxRetries: 1, timeout: time.Millisecond, tries: []try{{hang: true, sent: true}}, attempts: 2, sleeps: 1,
			err: "llm: chat: unavailable after 2 attempts: no answer within 1ms: context deadline exceeded"},
		{name: "a Retry-After past the longest wait ends the call", maxRetries: 3, maxDelay: 10 * time.Second, tries: []try{{status: 503, retryAfter: "120"}}, attempts: 1,
			err: "llm: chat: unavailable: the endpoint asks to retry after 2m0s: HTTP 503: boom"},
		{name: "no time left before the caller's deadline", maxRetries: 3, deadline: time.Hour, tries: []try{{status: 503, retryAfter: "7200"}}, maxDelay: 3 * time.Hour, attempts: 1,
			err: "llm: chat: unavailable: no time left to retry after 1 attempts: HTTP 503: boom"},
		{name: "the caller's context ends during an attempt", maxRetries: 3, tries: []try{{status: 503, cancel: true}}, attempts: 1,
			err: "llm: chat: unavailable: context canceled (attempt 1: boom)"},
		{name: "the wait itself is cut short", maxRetries: 3, sleepErr: errors.New("stopped"), tries: []try{{status: 503}}, attempts: 1, sleeps: 1,
			err: "llm: chat: unavailable: stopped (waiting to retry after: HTTP 503)"},
		{name: "rate limited past the retries", maxRetries: 1, tries: []try{{status: 429, retryAfter: "3"}}, attempts: 2, sleeps: 1, limited: 3 * time.Second,
			err: "rate limited: retry after 3s: llm: chat: still rate limited after 2 attempts: HTTP 429: boom"},
		{name: "rate limited for longer than the longest wait", maxRetries: 3, maxDelay: 10 * time.Second, tries: []try{{status: 429, retryAfter: "120"}}, attempts: 1, limited: 2 * time.Minute,
			err: "rate limited: retry after 2m0s: llm: chat: the endpoint asks to retry after 2m0s: HTTP 429: boom"},
		{name: "rate limited past the caller's deadline", maxRetries: 3, maxDelay: 3 * time.Hour, deadline: time.Hour, tries: []try{{status: 429, retryAfter: "7200"}}, attempts: 1, limited: 2 * time.Hour,
			err: "rate limited: retry after 2h0m0s: llm: chat: no time left to wait for the retry: HTTP 429: boom"},
		{name: "rate limited without Retry-After waits at least a second", maxRetries: 0, tries: []try{{status: 429}}, attempts: 1, limited: time.Second,
			err: "rate limited: retry after 1s: llm: chat: still rate limited after 1 attempts: HTTP 429: boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.deadline > 0 {
				ctx, cancel = context.WithTimeout(ctx, tc.deadline)
				defer cancel()
			}
			if tc.cancelled {
				cancel()
			}
			r := newRetrier(tc.timeout, tc.maxRetries, time.Millisecond, tc.maxDelay)
			if tc.timeout == 0 {
				r.timeout = 10 * time.Second
			}
			slept := 0
			r.sleep = func(context.Context, time.Duration) error { slept++; return tc.sleepErr }
			op, count := script(cancel, tc.tries...)
			n, err := r.do(ctx, "chat", op)
			if n != tc.attempts || *count != tc.attempts || slept != tc.sleeps {
				t.Errorf("attempts %d (ran %d), sleeps %d; want %d, %d", n, *count, slept, tc.attempts, tc.sleeps)
			}
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("err = %v, want success", err)
			case tc.err != "" && (err == nil || err.Error() != tc.err):
				t.Fatalf("err = %v\nwant  %s", err, tc.err)
			case tc.err == "":
				return
			}
			if tc.err != "boom" && !errors.Is(err, ports.ErrUnavailable) {
				t.Errorf("%v is not ErrUnavailable", err)
			}
			if errors.Is(err, ErrRejected) != tc.rejected {
				t.Errorf("rejected = %v, want %v", !tc.rejected, tc.rejected)
			}
			var rl *ports.RateLimitedError
			if got := errors.As(err, &rl); got != (tc.limited > 0) || got && rl.RetryAfter != tc.limited {
				t.Errorf("rate limited %v %+v, want %v", got, rl, tc.limited)
			}
		})
	}
}

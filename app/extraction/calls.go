package extraction

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"engram/ports"
)

// Why a run waits instead of calling the model (Report.Wait.Reason, metrics).
const (
	WaitBudget      = "llm_budget"   // the tenant spent its ENGRAM_LLM_TENANT_CALLS_PER_MINUTE
	WaitRateLimited = "rate_limited" // the endpoint answered HTTP 429
)

// Wait is a run that did not call the model: its messages stay PENDING, due again
// at Until, their attempts untouched.
type Wait struct {
	Stage  string // the stage that would have called
	Reason string // WaitBudget or WaitRateLimited
	Until  time.Time
}

// waitError carries a Wait out of a stage.
type waitError struct {
	Wait
	note string // kept on the messages, for GET /messages/{id}
}

func (e *waitError) Error() string { return e.note }

func asWait(err error) (*waitError, bool) {
	var w *waitError
	return w, errors.As(err, &w)
}

// calls is how the pipeline spends model calls across all its runs: at most
// MaxCallsInFlight at once, none while the endpoint asked everyone to slow down
// (a 429 pauses every run until its Retry-After, on this pipeline's clock), and
// each tenant within its budget. Only the pause and the budget make a run wait;
// the in-flight bound only queues calls.
type calls struct {
	slots  chan struct{}   // nil: unbounded
	budget ports.LLMBudget // nil: no budget (the offline rules make no calls)

	mu          sync.Mutex
	pausedUntil time.Time
}

func newCalls(inFlight int, budget ports.LLMBudget) *calls {
	c := &calls{budget: budget}
	if inFlight > 0 {
		c.slots = make(chan struct{}, inFlight)
	}
	return c
}

// admit says whether stage may call the model for tenant now, or how long to wait.
// An admitted call has spent one call of the tenant's budget.
func (c *calls) admit(stage, tenant string, now time.Time) *waitError {
	c.mu.Lock()
	paused := c.pausedUntil
	c.mu.Unlock()
	if now.Before(paused) {
		return &waitError{Wait: Wait{Stage: stage, Reason: WaitRateLimited, Until: paused},
			note: fmt.Sprintf("waiting: the LLM endpoint asked to slow down (HTTP 429); extraction resumes at %s", paused.UTC().Format(time.RFC3339))}
	}
	if c.budget == nil {
		return nil
	}
	if ok, next := c.budget.Take(tenant, now); !ok {
		return &waitError{Wait: Wait{Stage: stage, Reason: WaitBudget, Until: next},
			note: fmt.Sprintf("waiting: tenant %s has used its LLM budget (ENGRAM_LLM_TENANT_CALLS_PER_MINUTE); extraction resumes at %s",
				tenant, next.UTC().Format(time.RFC3339))}
	}
	return nil
}

// acquire takes one of the in-flight slots, waiting for it while ctx lasts; the
// returned func gives it back.
func (c *calls) acquire(ctx context.Context) (func(), error) {
	if c.slots == nil {
		return func() {}, nil
	}
	select {
	case c.slots <- struct{}{}:
		return func() { <-c.slots }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for a free LLM call slot: %w", ctx.Err())
	}
}

// rateLimited turns a 429 from the model into a wait: every run pauses until the
// endpoint's Retry-After. Other errors give nil.
func (c *calls) rateLimited(stage string, err error, now time.Time) *waitError {
	rl, ok := ports.AsRateLimited(err)
	if !ok {
		return nil
	}
	until := now.Add(max(rl.RetryAfter, time.Second))
	c.mu.Lock()
	if until.After(c.pausedUntil) {
		c.pausedUntil = until
	}
	c.mu.Unlock()
	return &waitError{Wait: Wait{Stage: stage, Reason: WaitRateLimited, Until: until},
		note: fmt.Sprintf("waiting: the LLM endpoint asked to slow down (HTTP 429, retry after %s); extraction resumes at %s",
			rl.RetryAfter, until.UTC().Format(time.RFC3339))}
}

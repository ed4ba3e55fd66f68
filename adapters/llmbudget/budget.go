// Package llmbudget is ports.LLMBudget in process memory: a token bucket per tenant
// (golang.org/x/time/rate) refilled at ENGRAM_LLM_TENANT_CALLS_PER_MINUTE and
// holding at most a minute's worth, so a quiet tenant may spend a minute's calls
// at once and a busy one settles at the rate. Each process keeps its own buckets:
// N worker processes allow a tenant N times the rate.
package llmbudget

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"engram/ports"
)

// Budget is safe for concurrent use.
type Budget struct {
	perMinute int

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

var _ ports.LLMBudget = (*Budget)(nil)

// New returns a budget of perMinute calls per tenant per minute; perMinute ≤ 0
// means unlimited (Take always allows).
func New(perMinute int) *Budget {
	return &Budget{perMinute: perMinute, buckets: map[string]*rate.Limiter{}}
}

// Take implements ports.LLMBudget.
func (b *Budget) Take(tenant string, now time.Time) (bool, time.Time) {
	if b.perMinute <= 0 {
		return true, now
	}
	lim := b.bucket(tenant, now)
	if lim.AllowN(now, 1) {
		return true, now
	}
	// The bucket holds less than one call: the next one is allowed once the
	// missing fraction has been refilled.
	missing := 1 - lim.TokensAt(now)
	wait := time.Duration(math.Ceil(missing / float64(lim.Limit()) * float64(time.Second)))
	return false, now.Add(max(wait, time.Millisecond))
}

func (b *Budget) bucket(tenant string, now time.Time) *rate.Limiter {
	b.mu.Lock()
	defer b.mu.Unlock()
	lim, ok := b.buckets[tenant]
	if !ok {
		lim = rate.NewLimiter(rate.Limit(float64(b.perMinute)/60), b.perMinute)
		lim.SetLimitAt(now, lim.Limit()) // a new bucket starts full at now, not at the zero time
		b.buckets[tenant] = lim
	}
	return lim
}

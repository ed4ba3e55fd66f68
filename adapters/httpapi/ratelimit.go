package httpapi

import (
	"math"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// keyLimits is a token bucket per API key, in this process: rps requests a
// second, with a burst of one second's worth. Buckets exist only for keys that
// authenticated, so their number is bounded by the keys issued. A nil *keyLimits
// limits nothing.
type keyLimits struct {
	rps   rate.Limit
	burst int
	mu    sync.Mutex
	byKey map[string]*rate.Limiter
}

// newKeyLimits returns nil (no limit) when rps is 0.
func newKeyLimits(rps float64) *keyLimits {
	if rps <= 0 {
		return nil
	}
	return &keyLimits{rps: rate.Limit(rps), burst: max(1, int(math.Ceil(rps))), byKey: map[string]*rate.Limiter{}}
}

// allow takes a token of the key's bucket; when there is none, it says in how
// many whole seconds (at least 1) the next one comes.
func (l *keyLimits) allow(key string) (retryAfter int, ok bool) {
	if l == nil {
		return 0, true
	}
	l.mu.Lock()
	lim := l.byKey[key]
	if lim == nil {
		lim = rate.NewLimiter(l.rps, l.burst)
		l.byKey[key] = lim
	}
	l.mu.Unlock()
	now := time.Now()
	r := lim.ReserveN(now, 1)
	delay := r.DelayFrom(now)
	if delay == 0 {
		return 0, true
	}
	r.CancelAt(now) // a refused request spends nothing
	return max(1, int(math.Ceil(delay.Seconds()))), false
}

func (l *keyLimits) describe() string {
	return strconv.FormatFloat(float64(l.rps), 'f', -1, 64) + " requests per second"
}

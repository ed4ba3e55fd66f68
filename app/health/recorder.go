// Package health keeps what the real calls to each dependency said recently, so
// that readiness reports a remote embedder that fails, an LLM that times out or a
// full disk, not only what a probe saw. Decorators of the ports report every call
// into a Recorder; readiness reads it. It depends on ports and the standard
// library only.
package health

import (
	"fmt"
	"sync"
	"time"

	"engram/ports"
)

// State of a dependency.
type State string

const (
	Up       State = "up"
	Degraded State = "degraded" // recent calls failed; it may still answer
	Down     State = "down"     // DownAfter calls in a row failed
)

// Dependency names used by engram's decorators.
const (
	SQL      = "sql"
	Embedder = "embedder"
	LLM      = "llm"
)

// DefaultDownAfter is how many failures in a row make a dependency down.
const DefaultDownAfter = 3

// Status is what the recent calls of one dependency said.
type Status struct {
	State       State
	Err         string // the last failure, while State is not Up
	Failures    int    // failures since the last success
	LastFailure time.Time
	LastSuccess time.Time
}

// Detail says why a dependency is not up, in one line; empty when it is.
func (s Status) Detail() string {
	if s.State == Up {
		return ""
	}
	calls := "call"
	if s.Failures > 1 {
		calls = "calls"
	}
	return fmt.Sprintf("%d %s failed in a row, the last at %s: %s",
		s.Failures, calls, s.LastFailure.UTC().Format(time.RFC3339), s.Err)
}

// Assess turns the record of a dependency into its state: the last call decides;
// a success makes it up at once, failures make it degraded, and downAfter of them
// in a row down (0: never down, for a dependency whose failures do not stop the
// service, such as SQL writes refused by a full disk while reads still work).
func Assess(failures, downAfter int) State {
	switch {
	case failures == 0:
		return Up
	case downAfter > 0 && failures >= downAfter:
		return Down
	}
	return Degraded
}

// Recorder keeps the last outcome of each dependency's calls. It is safe for
// concurrent use.
type Recorder struct {
	clock ports.Clock
	mu    sync.Mutex
	deps  map[string]*Status
	down  map[string]int
}

// NewRecorder records the named dependencies; downAfter gives each one's
// failures-in-a-row threshold for Down (see Assess). Others are ignored.
func NewRecorder(clock ports.Clock, downAfter map[string]int) *Recorder {
	r := &Recorder{clock: clock, deps: map[string]*Status{}, down: map[string]int{}}
	for dep, n := range downAfter {
		r.deps[dep] = &Status{State: Up}
		r.down[dep] = n
	}
	return r
}

// Observe records one call of dep: nil is a success.
func (r *Recorder) Observe(dep string, err error) {
	if r == nil {
		return
	}
	now := r.clock.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.deps[dep]
	if !ok {
		return
	}
	if err == nil {
		s.Failures, s.Err, s.LastSuccess = 0, "", now
	} else {
		s.Failures++
		s.Err, s.LastFailure = err.Error(), now
	}
	s.State = Assess(s.Failures, r.down[dep])
}

// Status returns what dep's recent calls said; a dependency with no call yet is Up.
func (r *Recorder) Status(dep string) Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.deps[dep]; ok {
		return *s
	}
	return Status{State: Up}
}

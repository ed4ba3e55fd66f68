// Package ulids makes ULIDs: unique, and sorting by creation time, so rows keyed by
// them list in the order they were made.
package ulids

import (
	"crypto/rand"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"engram/ports"
)

// Generator is safe for concurrent use. Within one millisecond its ids increase
// monotonically, so events written in one burst keep their order.
type Generator struct {
	mu      sync.Mutex
	entropy *ulid.MonotonicEntropy
}

var _ ports.IDs = (*Generator)(nil)

// New returns a generator seeded from crypto/rand.
func New() *Generator {
	return &Generator{entropy: ulid.Monotonic(rand.Reader, 0)}
}

// New returns the next id.
func (g *Generator) New() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return ulid.MustNew(ulid.Timestamp(time.Now()), g.entropy).String()
}

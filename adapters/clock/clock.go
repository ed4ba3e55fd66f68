// Package clock is the real ports.Clock.
package clock

import (
	"time"

	"engram/ports"
)

// System reads the machine's clock, in UTC.
type System struct{}

var _ ports.Clock = System{}

func (System) Now() time.Time { return time.Now().UTC() }

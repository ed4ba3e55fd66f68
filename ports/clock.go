package ports

import "time"

// Clock tells the time, so tests can fix it.
type Clock interface {
	Now() time.Time
}

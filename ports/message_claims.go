package ports

import (
	"time"

	"engram/domain/conversation"
)

// Claim says what an extraction worker asks the message store for (the worker
// declares the queue it claims from, app/extraction.Queue).
//
// A worker claims whole conversations' due messages for a lease. Until the
// lease ends no other worker is given them; a worker that dies leaves its claims to
// lapse, and the next rescan hands them to another. Results are stored only while
// the claim is still the worker's, so a stale worker never overwrites another's.
//
// Without Recover, due means PENDING, unclaimed, and ProcessAfter reached: fresh
// traffic after its debounce (the worker's frequent poll). With Recover, due also
// takes FAILED messages whose backoff has passed and messages whose claim lapsed
// (a dead worker's): the periodic rescan.
type Claim struct {
	Worker           string
	Now              time.Time
	Lease            time.Duration
	MaxConversations int
	Recover          bool
}

// MessageStats is what the message metrics show.
type MessageStats struct {
	ByStatus      map[conversation.Status]int64
	OldestPending time.Time // ReceivedAt of the oldest PENDING message; zero if none
}

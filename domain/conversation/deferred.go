package conversation

import (
	"strings"
	"time"

	"engram/domain/clip"
)

// Deferred records that extraction did not run for a reason that is not the
// message's: the tenant's LLM budget is spent, or the endpoint asked to slow down
// (HTTP 429). The message stays PENDING and is due again at until; its attempts
// are untouched, so waiting never uses up its retries. Its skip reason is
// deferred; note says why it waits and is kept in Error until the next outcome
// replaces it.
func (m Message) Deferred(until time.Time, note string) Message {
	m.Status = StatusPending
	m.SkipReason = SkipDeferred
	m.Error = clip.Runes(strings.TrimSpace(note), MaxErrorLen)
	m.ProcessAfter = until.UTC()
	return m
}

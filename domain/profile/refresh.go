package profile

import "time"

// RefreshMark is a user's pending profile refresh: the worker derives the profile
// again once Due has passed. Marks coalesce: however many conversations and events
// arrive, one refresh runs.
type RefreshMark struct {
	FirstMarked time.Time // when the oldest change not yet in the profile arrived
	Due         time.Time
}

// NextMark debounces a refresh: a change at now makes the refresh due debounce
// later, pushing back a pending one, but never later than maxWait after the first
// change it waits for, so a user who never stops talking still gets a fresh
// profile. cur is the pending mark, nil when there is none.
func NextMark(cur *RefreshMark, now time.Time, debounce, maxWait time.Duration) RefreshMark {
	first := now
	if cur != nil && !cur.FirstMarked.IsZero() && cur.FirstMarked.Before(now) {
		first = cur.FirstMarked
	}
	due := now.Add(debounce)
	if limit := first.Add(maxWait); due.After(limit) {
		due = limit
	}
	if due.Before(now) {
		due = now
	}
	return RefreshMark{FirstMarked: first, Due: due}
}

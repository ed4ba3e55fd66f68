package conversation

import "time"

// Batching bounds how long a conversation's user messages wait for extraction. The
// debounce (each new user message pushes the wait to its own receipt plus
// LONG_TERM_MEMORY_DEBOUNCE_SEC) batches a burst of messages into one extraction;
// these bounds keep a conversation that never goes quiet from waiting for ever
// and keep one extraction's prompt from growing without end. Zero values mean no
// bound.
type Batching struct {
	// MaxMessages: once this many user messages wait, they are due at once
	// (LONG_TERM_MEMORY_BATCH_MAX_MESSAGES).
	MaxMessages int
	// MaxWait: messages are due at most this long after the oldest of them was
	// received, however often the debounce was pushed
	// (LONG_TERM_MEMORY_BATCH_MAX_WAIT_SEC).
	MaxWait time.Duration
}

// Bounded reports whether any bound is set; without one the debounce alone decides.
func (b Batching) Bounded() bool { return b.MaxMessages > 0 || b.MaxWait > 0 }

// Waiting is what a conversation has waiting after messages arrived: its unclaimed
// PENDING user messages, the new ones included.
type Waiting struct {
	Count          int       // how many messages wait
	OldestReceived time.Time // when the longest-waiting one was received
	NewestReceived time.Time // when the newest one was received
	// Debounced is when the debounce alone would make them due: the latest
	// ProcessAfter among the messages that just arrived.
	Debounced time.Time
}

// Due is when the waiting messages are extracted, together: when the conversation
// has been idle for the debounce, when MaxMessages wait, or MaxWait after the
// oldest arrived, whichever comes first.
func (b Batching) Due(w Waiting) time.Time {
	due := w.Debounced
	if b.MaxWait > 0 && !w.OldestReceived.IsZero() {
		if capped := w.OldestReceived.Add(b.MaxWait); capped.Before(due) {
			due = capped
		}
	}
	if b.MaxMessages > 0 && w.Count >= b.MaxMessages && w.NewestReceived.Before(due) {
		due = w.NewestReceived
	}
	return due.UTC()
}

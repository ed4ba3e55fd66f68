package ports

import (
	"context"
	"time"

	"engram/domain/session"
)

// TurnQueue holds recorded turns on their way to the extraction channel: a
// session store that queues a turn atomically with its append (Redis) answers
// record_exchange at once, and a relay writes the turn's messages into the
// message store afterwards. Delivery is at least once (a relay that dies leaves
// its turns to be claimed again), so the writes must be idempotent.
type TurnQueue interface {
	// ReadTurns hands consumer up to limit turns nobody has read yet, waiting up
	// to wait for the first one.
	ReadTurns(ctx context.Context, consumer string, limit int, wait time.Duration) ([]QueuedTurn, error)
	// PendingTurns hands consumer back up to limit turns it read before and did
	// not acknowledge (its acknowledgement failed, or it restarted), oldest first.
	PendingTurns(ctx context.Context, consumer string, limit int) ([]QueuedTurn, error)
	// ClaimStaleTurns hands consumer up to limit turns read but not acknowledged
	// for at least idle (a relay that died).
	ClaimStaleTurns(ctx context.Context, consumer string, idle time.Duration, limit int) ([]QueuedTurn, error)
	// AckTurns removes handled turns from the queue.
	AckTurns(ctx context.Context, ids []string) error
}

// QueuedTurn is one turn in the queue. Err is set when the stored entry cannot be
// read back (it is still to be acknowledged, or it would come back forever).
type QueuedTurn struct {
	ID       string
	Exchange session.Exchange
	Err      error
}

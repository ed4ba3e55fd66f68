package sessions

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
)

// Relaying is a session store that may queue a turn for the extraction channel in
// the same atomic write as its append (Redis with a turns stream): Record then
// answers once the append is durable, and a Relay writes the turn's messages.
type Relaying interface {
	RelaysTurns() bool
}

// RelayObserver hears about relayed turns (metrics).
type RelayObserver interface {
	// Relayed counts turns written to the extraction channel, and turns dropped
	// because they can never be written (refused as invalid or conflicting).
	Relayed(written, dropped int)
}

// RelayOptions shape the relay.
type RelayOptions struct {
	Consumer   string        // this process, in the queue's consumer group
	Batch      int           // turns per read; default 200
	Wait       time.Duration // a read waits this long for a turn; default 1 s
	StaleAfter time.Duration // a turn read but not acknowledged this long is taken over; default 1 min
	Backoff    time.Duration // after a failed step; default 1 s
	Parallel   int           // users written side by side; default 8
	Logger     *slog.Logger
	Observer   RelayObserver
}

// Relay writes queued turns into the extraction channel: at least once, and the
// messages' ids derive from the exchange, so a turn written twice is stored once.
type Relay struct {
	queue ports.TurnQueue
	conv  Conversations
	opts  RelayOptions
}

// NewRelay builds the relay from queue to conv.
func NewRelay(queue ports.TurnQueue, conv Conversations, opts RelayOptions) *Relay {
	if opts.Batch <= 0 {
		opts.Batch = 200
	}
	if opts.Wait <= 0 {
		opts.Wait = time.Second
	}
	if opts.StaleAfter <= 0 {
		opts.StaleAfter = time.Minute
	}
	if opts.Backoff <= 0 {
		opts.Backoff = time.Second
	}
	if opts.Parallel <= 0 {
		opts.Parallel = 8
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Relay{queue: queue, conv: conv, opts: opts}
}

// What a relay step reads.
const (
	ReadNew     = iota // turns nobody read yet (waiting up to Wait)
	ReadPending        // this consumer's own unacknowledged turns
	ReadStale          // other consumers' turns unacknowledged for StaleAfter
)

// Step reads turns (what says which), writes and acknowledges them. It returns
// how many turns it handled.
func (r *Relay) Step(ctx context.Context, what int) (int, error) {
	var turns []ports.QueuedTurn
	var err error
	switch what {
	case ReadStale:
		turns, err = r.queue.ClaimStaleTurns(ctx, r.opts.Consumer, r.opts.StaleAfter, r.opts.Batch)
	case ReadPending:
		turns, err = r.queue.PendingTurns(ctx, r.opts.Consumer, r.opts.Batch)
	default:
		turns, err = r.queue.ReadTurns(ctx, r.opts.Consumer, r.opts.Batch, r.opts.Wait)
	}
	if err != nil || len(turns) == 0 {
		return 0, err
	}
	done, err := r.write(ctx, turns)
	if ackErr := r.queue.AckTurns(ctx, done); ackErr != nil {
		return 0, ackErr // the turns come back as stale; their writes are idempotent
	}
	return len(done), err
}

// write stores the turns' messages, one batch per user, users side by side (up
// to Parallel at once), and returns the ids of the turns that need no retry. A
// failed batch is written turn by turn: a turn the message store refuses for good
// is dropped (logged), one it cannot take now stays queued.
func (r *Relay) write(ctx context.Context, turns []ports.QueuedTurn) ([]string, error) {
	groups, unreadable := groupByScope(turns)
	var (
		mu       sync.Mutex
		done     []string
		dropped  int
		firstErr error
		wg       sync.WaitGroup
		slots    = make(chan struct{}, r.opts.Parallel)
	)
	for _, t := range unreadable {
		r.opts.Logger.ErrorContext(ctx, "session relay: a queued turn cannot be read; dropped", "id", t.ID, "error", t.Err)
		done, dropped = append(done, t.ID), dropped+1
	}
	for _, group := range groups {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			ok, drop, err := r.writeGroup(ctx, group)
			mu.Lock()
			defer mu.Unlock()
			done, dropped = append(done, ok...), dropped+drop
			if err != nil && firstErr == nil {
				firstErr = err
			}
		})
	}
	wg.Wait()
	if r.opts.Observer != nil {
		r.opts.Observer.Relayed(len(done)-dropped, dropped)
	}
	return done, firstErr
}

// groupByScope splits turns by user, in their order; unreadable turns apart.
func groupByScope(turns []ports.QueuedTurn) (groups [][]ports.QueuedTurn, unreadable []ports.QueuedTurn) {
	index := map[memory.Scope]int{}
	for _, t := range turns {
		if t.Err != nil {
			unreadable = append(unreadable, t)
			continue
		}
		sc := t.Exchange.Ref.Scope
		i, ok := index[sc]
		if !ok {
			i = len(groups)
			index[sc] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], t)
	}
	return groups, unreadable
}

// writeGroup writes one user's turns in one batch, or one by one when the batch
// fails. It returns the ids done (written or dropped), how many were dropped, and
// the first error worth a retry.
func (r *Relay) writeGroup(ctx context.Context, group []ports.QueuedTurn) (done []string, dropped int, retry error) {
	sc := group[0].Exchange.Ref.Scope
	var msgs []conversation.Input
	for _, t := range group {
		msgs = append(msgs, turnMessages(t.Exchange)...)
	}
	if err := r.conv.RecordTurn(ctx, sc, msgs); err == nil {
		for _, t := range group {
			done = append(done, t.ID)
		}
		return done, 0, nil
	}
	for _, t := range group {
		err := r.conv.RecordTurn(ctx, sc, turnMessages(t.Exchange))
		switch {
		case err == nil:
			done = append(done, t.ID)
		case erasing(err):
			// The user is being erased: the turn goes with the rest of them, or it
			// would come back after the purge, as a message of a user who asked to
			// be forgotten.
			// The log names the user by pseudonym only, as the erasure's record does.
			r.opts.Logger.InfoContext(ctx, "session relay: the user is being erased; their queued turn is dropped",
				"user", t.Exchange.Ref.Scope.Fingerprint(), "exchange", t.Exchange.ID)
			done, dropped = append(done, t.ID), dropped+1
		case chatDeleted(err):
			// The session was deleted after the turn was queued: writing it would
			// bring the deleted chat back.
			r.opts.Logger.InfoContext(ctx, "session relay: the session was deleted; its queued turn is dropped",
				"exchange", t.Exchange.ID)
			done, dropped = append(done, t.ID), dropped+1
		case retryable(err):
			if retry == nil {
				retry = err
			}
		default:
			r.opts.Logger.ErrorContext(ctx, "session relay: the message store refused a turn; dropped",
				"session", t.Exchange.Ref.String(), "exchange", t.Exchange.ID, "error", err)
			done, dropped = append(done, t.ID), dropped+1
		}
	}
	return done, dropped, retry
}

func retryable(err error) bool {
	return errors.Is(err, ports.ErrUnavailable) || errors.Is(err, ports.ErrConflict) && !isMessageConflict(err) && !chatDeleted(err) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

func erasing(err error) bool {
	var e *ports.ErasingError
	return errors.As(err, &e)
}

func chatDeleted(err error) bool {
	var e *ports.ConversationDeletedError
	return errors.As(err, &e)
}

func isMessageConflict(err error) bool {
	var mc *ports.MessageConflictError
	return errors.As(err, &mc)
}

// Run relays until ctx ends. It starts, and starts again after every failure,
// with its own unacknowledged turns (a failed acknowledgement, a restart), and
// takes over other consumers' stale turns every StaleAfter/2.
func (r *Relay) Run(ctx context.Context) {
	lastStale := time.Now()
	what := ReadPending
	for ctx.Err() == nil {
		if what == ReadNew && time.Since(lastStale) >= r.opts.StaleAfter/2 {
			what, lastStale = ReadStale, time.Now()
		}
		n, err := r.Step(ctx, what)
		switch {
		case err != nil && ctx.Err() == nil:
			if !errors.Is(err, ports.ErrUnavailable) {
				r.opts.Logger.WarnContext(ctx, "session relay: step failed; retrying", "error", err)
			}
			what = ReadPending
			select {
			case <-ctx.Done():
			case <-time.After(r.opts.Backoff):
			}
		case what != ReadNew && n == 0:
			what = ReadNew // nothing of this kind is left
		}
	}
}

package profiles

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"engram/domain/memory"
)

// DefaultMarkInterval is how often Marks writes the marks it collected.
const DefaultMarkInterval = time.Second

// Marks takes the profile marks of the request path off it: record_exchange
// calls ExchangeRecorded, which notes the user and returns at once (a map insert,
// no write); Run writes each noted user's mark (MarkStale, debounced in the
// queue) every interval, however many turns they recorded meanwhile. A refresh is
// debounced by a minute anyway, so a second's delay changes nothing, and a mark
// lost with a killed process is made again once the turn's messages are
// extracted.
type Marks struct {
	svc      *Service
	interval time.Duration
	log      *slog.Logger

	mu      sync.Mutex
	pending map[memory.Scope]struct{}
}

// MarksOptions shape the loop. Zero values take the defaults.
type MarksOptions struct {
	Interval time.Duration
	Logger   *slog.Logger
}

// NewMarks collects marks for svc's refresh queue.
func NewMarks(svc *Service, opts MarksOptions) *Marks {
	if opts.Interval <= 0 {
		opts.Interval = DefaultMarkInterval
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Marks{svc: svc, interval: opts.Interval, log: opts.Logger, pending: map[memory.Scope]struct{}{}}
}

// ExchangeRecorded notes that the user recorded a turn: their sessions changed.
func (m *Marks) ExchangeRecorded(scope memory.Scope) {
	m.mu.Lock()
	m.pending[scope] = struct{}{}
	m.mu.Unlock()
}

// Flush writes the marks noted so far and returns how many it wrote. A mark that
// could not be written is noted again for the next flush.
func (m *Marks) Flush(ctx context.Context) (int, error) {
	m.mu.Lock()
	due := m.pending
	m.pending = make(map[memory.Scope]struct{}, len(due))
	m.mu.Unlock()
	written := 0
	var firstErr error
	for scope := range due {
		if firstErr == nil {
			if err := m.svc.MarkStale(ctx, scope); err != nil {
				firstErr = err
			} else {
				written++
				continue
			}
		}
		m.ExchangeRecorded(scope)
	}
	return written, firstErr
}

// Run flushes every interval until ctx ends, then once more, so the marks of the
// last turns before a shutdown are written.
func (m *Marks) Run(ctx context.Context) {
	t := time.NewTicker(m.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if _, err := m.Flush(fctx); err != nil {
				m.log.Warn("marking profiles for refresh at shutdown failed; their next messages mark them again", "error", err)
			}
			return
		case <-t.C:
			if _, err := m.Flush(ctx); err != nil && ctx.Err() == nil {
				m.log.Warn("marking profiles for refresh failed; retrying at the next flush", "error", err)
			}
		}
	}
}

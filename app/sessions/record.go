package sessions

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"sync"
	"time"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/domain/session"
	"engram/ports"
)

// Record is one turn an agent records after its flow ran (record_exchange).
type Record struct {
	Scope     memory.Scope
	SessionID string
	FlowID    string
	Exchange  session.ExchangeInput
}

// Recorded is the session after the turn. Duplicate: the exchange id was
// recorded before and nothing was written again. Timings are the stages' wall
// times ("session_store", "messages"), which run side by side.
type Recorded struct {
	Exchange  session.Exchange
	Meta      session.Meta
	Duplicate bool
	Timings   map[string]time.Duration
}

// Record stores the exchange in the session store and its two messages in the
// extraction channel (conversation = the session id), and returns once both are
// durable — or, with a store that queues the turn with its append (Redis), once
// the append is: the Relay writes the messages then. A failure is returned; a
// retry with the same exchange id writes only what is missing. A session queued
// for a fold wakes the folder; every recorded exchange is told to the Exchanges
// observer.
func (s *Service) Record(ctx context.Context, cmd Record) (Recorded, error) {
	ref, err := session.ParseRef(cmd.Scope, cmd.FlowID, cmd.SessionID)
	if err != nil {
		return Recorded{}, err
	}
	in := cmd.Exchange
	in.UserMessage = s.opts.Secrets.Stored(in.UserMessage)
	in.AssistantMessage = s.opts.Secrets.Stored(in.AssistantMessage)
	x, err := session.NewExchange(ref, in, s.deps.IDs.New(), s.deps.Clock.Now())
	if err != nil {
		return Recorded{}, err
	}
	if err := ports.RefuseErasing(ctx, s.deps.Erasures, cmd.Scope); err != nil {
		return Recorded{}, err
	}
	appended, timings, err := s.store(ctx, x)
	if err != nil {
		return Recorded{}, exchangeConflict(x, err)
	}
	if appended.FoldQueued && s.deps.Notifier != nil {
		s.deps.Notifier.Notify()
	}
	if s.deps.Exchanges != nil {
		s.deps.Exchanges.ExchangeRecorded(cmd.Scope)
	}
	return Recorded{Exchange: x, Meta: appended.Meta, Duplicate: appended.Duplicate, Timings: timings}, nil
}

// ExchangeConflictError is an exchange id recorded before with other messages: a
// client that reused the id for another turn, not a retry. It wraps the message
// store's *ports.MessageConflictError (and so ports.ErrConflict).
type ExchangeConflictError struct {
	ExchangeID string
	err        error
}

func (e *ExchangeConflictError) Error() string {
	return "exchange_id is already recorded in this session with other messages"
}

func (e *ExchangeConflictError) Unwrap() error { return e.err }

// exchangeConflict says a message conflict of the turn in the turn's terms: the
// client sent exchange ids, never the message ids derived from them.
func exchangeConflict(x session.Exchange, err error) error {
	var mc *ports.MessageConflictError
	if errors.As(err, &mc) {
		return &ExchangeConflictError{ExchangeID: x.ID, err: err}
	}
	return err
}

// store writes the turn. A store that queues turns itself (Redis) is written
// first, and the messages only when it did not queue them (served by the SQL
// fallback, or a retry); otherwise both writes run side by side.
func (s *Service) store(ctx context.Context, x session.Exchange) (ports.SessionAppended, map[string]time.Duration, error) {
	var (
		appended          ports.SessionAppended
		storeErr, convErr error
		storeDur, convDur time.Duration
	)
	appendTurn := func() {
		start := time.Now()
		appended, storeErr = s.deps.Store.AppendExchange(ctx, ports.SessionAppend{Exchange: x, FoldAt: s.opts.Policy.Threshold})
		storeDur = time.Since(start)
	}
	writeMessages := func() {
		start := time.Now()
		convErr = s.deps.Conversations.RecordTurn(ctx, x.Ref.Scope, turnMessages(x))
		convDur = time.Since(start)
	}
	if r, ok := s.deps.Store.(Relaying); ok && r.RelaysTurns() {
		appendTurn()
		if storeErr == nil && !appended.Relayed {
			writeMessages()
		}
	} else {
		var wg sync.WaitGroup
		wg.Go(appendTurn)
		writeMessages()
		wg.Wait()
	}
	timings := map[string]time.Duration{"session_store": storeDur}
	if convDur > 0 {
		timings["messages"] = convDur
	}
	return appended, timings, errors.Join(storeErr, convErr)
}

// turnMessages are the exchange as conversation messages: the user's message
// (a source of facts) and the assistant's answer (context), with ids derived from
// the flow, session and exchange, so a retry, or a turn relayed twice, is
// recognised by the message store.
func turnMessages(x session.Exchange) []conversation.Input {
	sum := sha256.Sum256([]byte(x.Ref.FlowID + "\x00" + x.Ref.SessionID + "\x00" + x.ID))
	id := "sx-" + hex.EncodeToString(sum[:12])
	return []conversation.Input{
		{ConversationID: x.Ref.SessionID, MessageID: id + "-u", Role: string(conversation.RoleUser), Content: x.User, CreatedAt: x.At},
		{ConversationID: x.Ref.SessionID, MessageID: id + "-a", Role: string(conversation.RoleAssistant), Content: x.Assistant, CreatedAt: x.At},
	}
}

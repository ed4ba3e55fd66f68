// Package adds holds the use cases of an add's record: an add is a batch of
// messages posted to be learned from at once (PENDING until every message is
// extracted, then SUCCEEDED or FAILED with the memories it changed), or memories
// written as given (SUCCEEDED at once). It depends on domain and ports only.
package adds

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"engram/domain/addevent"
	"engram/domain/conversation"
	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/ports"
)

// Messages is what an add reads of its messages: each one's extraction state
// and the memory events it caused.
type Messages interface {
	Message(ctx context.Context, scope memory.Scope, messageID string) (conversation.Message, error)
	CausedEvents(ctx context.Context, scope memory.Scope, messageID string) ([]memory.Event, error)
}

// Service runs the add use cases.
type Service struct {
	events   ports.AddEventStore
	messages Messages
	clock    ports.Clock
	ids      ports.IDs
}

// New builds the service.
func New(events ports.AddEventStore, messages Messages, clock ports.Clock, ids ports.IDs) *Service {
	return &Service{events: events, messages: messages, clock: clock, ids: ids}
}

// Begin records an add of messages just posted (post them with
// messages.PostBatch Immediate, so they are extracted without the debounce).
type Begin struct {
	Scope          memory.Scope
	ConversationID string
	MessageIDs     []string // the message ids the post answered, in order
}

// Begin stores the add PENDING and returns it with its new id.
func (s *Service) Begin(ctx context.Context, cmd Begin) (addevent.Record, error) {
	rec, err := addevent.New(s.ids.New(), cmd.Scope, cmd.ConversationID, cmd.MessageIDs, s.clock.Now())
	if err != nil {
		return addevent.Record{}, err
	}
	return rec, s.events.Create(ctx, rec)
}

// Done records an add that finished as it was made: memories written as given.
type Done struct {
	Scope   memory.Scope
	Results []addevent.Result
}

// Done stores the add SUCCEEDED with its results.
func (s *Service) Done(ctx context.Context, cmd Done) (addevent.Record, error) {
	rec, err := addevent.NewDone(s.ids.New(), cmd.Scope, cmd.Results, s.clock.Now())
	if err != nil {
		return addevent.Record{}, err
	}
	return rec, s.events.Create(ctx, rec)
}

// Get reads one add of the tenant by id.
type Get struct {
	Tenant string
	ID     string
}

// Get returns the add as it now stands: a PENDING add is resolved from its
// messages, and stored once it has finished.
func (s *Service) Get(ctx context.Context, q Get) (addevent.Record, error) {
	rec, err := s.events.Get(ctx, q.Tenant, q.ID)
	if err != nil {
		return addevent.Record{}, ports.NameNotFound(err, "event", q.ID)
	}
	return s.resolve(ctx, rec)
}

// List is a page of the tenant's adds, newest first.
type List struct {
	Tenant   string
	User     string // "": every user
	Page     int    // 1-based; 0: the first
	PageSize int    // 1..1000; 0: 100
}

// List returns the page, each PENDING add resolved as Get does.
func (s *Service) List(ctx context.Context, q List) ([]addevent.Record, error) {
	page, size := max(q.Page, 1), q.PageSize
	if size == 0 {
		size = 100
	}
	if q.Page < 0 || q.Page > 1_000_000 || size < 1 || size > 1000 {
		return nil, invalid.Field("page", "page must be 1 to 1000000 and page_size 1 to 1000")
	}
	recs, err := s.events.List(ctx, q.Tenant, ports.AddEventQuery{User: q.User, Offset: (page - 1) * size, Limit: size})
	if err != nil {
		return nil, err
	}
	for i := range recs {
		if recs[i], err = s.resolve(ctx, recs[i]); err != nil {
			return nil, err
		}
	}
	return recs, nil
}

// resolve reads a PENDING add's messages and the events they caused; a message
// erased since counts as done.
func (s *Service) resolve(ctx context.Context, rec addevent.Record) (addevent.Record, error) {
	if rec.Done() {
		return rec, nil
	}
	msgs := make([]conversation.Message, 0, len(rec.MessageIDs))
	var events []memory.Event
	for _, id := range rec.MessageIDs {
		m, err := s.messages.Message(ctx, rec.Scope, id)
		if errors.Is(err, ports.ErrNotFound) {
			continue
		}
		if err != nil {
			return addevent.Record{}, err
		}
		msgs = append(msgs, m)
		caused, err := s.messages.CausedEvents(ctx, rec.Scope, id)
		if err != nil {
			return addevent.Record{}, err
		}
		events = append(events, caused...)
	}
	next, changed := rec.Resolve(msgs, sortByID(events), s.clock.Now())
	if !changed {
		return rec, nil
	}
	if stored, err := s.events.Finish(ctx, next); err != nil || stored {
		return next, err
	}
	return s.events.Get(ctx, rec.Scope.Tenant, rec.ID) // another reader stored it first
}

// sortByID orders events oldest first across messages: event ids are ULIDs.
func sortByID(events []memory.Event) []memory.Event {
	slices.SortStableFunc(events, func(a, b memory.Event) int { return cmp.Compare(a.ID, b.ID) })
	return events
}

package mem0api

import (
	"context"
	"time"

	"engram/app/messages"
	"engram/domain/conversation"
	"engram/domain/memory"
)

// mem0EventJSON is an add's event: where its extraction stands and what it wrote.
type mem0EventJSON struct {
	ID        string           `json:"id" doc:"The event's id."`
	EventType string           `json:"event_type" doc:"Always ADD."`
	Status    string           `json:"status" doc:"PENDING, SUCCEEDED or FAILED."`
	Results   []mem0ResultJSON `json:"results" doc:"The memory changes the extraction made (ADD, UPDATE, DELETE)."`
	CreatedAt string           `json:"created_at" doc:"When the add was received."`
	UpdatedAt string           `json:"updated_at" doc:"When its extraction last moved."`

	created, updated time.Time
}

// getEvent is GET /v1/event/{event_id}/.
func (h *Handler) getEvent(c call) (any, error) {
	id := c.r.PathValue("event_id")
	user, _, _, err := parseEventID(id)
	if err != nil {
		return nil, err
	}
	scope, err := h.scope(c, user)
	if err != nil {
		return nil, err
	}
	return h.event(c.ctx(), scope, id)
}

// event reads the add's messages: PENDING while any waits, FAILED when one
// failed, else SUCCEEDED with the changes the messages caused.
func (h *Handler) event(ctx context.Context, scope memory.Scope, id string) (mem0EventJSON, error) {
	_, batch, n, err := parseEventID(id)
	if err != nil {
		return mem0EventJSON{}, err
	}
	out := mem0EventJSON{ID: id, EventType: "ADD", Status: "SUCCEEDED", Results: []mem0ResultJSON{}}
	for i := range n {
		view, err := h.deps.Messages.Get(ctx, messages.Get{Scope: scope, MessageID: messageID(batch, i)})
		if err != nil {
			return mem0EventJSON{}, notFoundAs(err, "event "+id+" not found")
		}
		out.note(view)
	}
	return out, nil
}

func (e *mem0EventJSON) note(view messages.View) {
	m := view.Message
	if e.created.IsZero() || m.ReceivedAt.Before(e.created) {
		e.created = m.ReceivedAt
	}
	e.updated = latest(e.updated, m.ReceivedAt, m.ProcessedAt)
	e.CreatedAt, e.UpdatedAt = stamp(e.created), stamp(e.updated)
	switch {
	case m.Status == conversation.StatusFailed && m.ProcessAfter.IsZero():
		e.Status = "FAILED" // no retry left
	case (m.Status == conversation.StatusPending || m.Status == conversation.StatusFailed) && e.Status != "FAILED":
		e.Status = "PENDING"
	}
	for _, ev := range view.Events {
		e.Results = append(e.Results, toResultJSON(ev))
	}
}

func latest(ts ...time.Time) time.Time {
	var out time.Time
	for _, t := range ts {
		if t.After(out) {
			out = t
		}
	}
	return out
}

package mem0api

import (
	"context"
	"strconv"

	"engram/app/adds"
	"engram/domain/addevent"
)

// Adds are the use cases of an add's record: an inferring add begins one, an
// add stored as given is done at once, and the event routes read them.
type Adds interface {
	Begin(ctx context.Context, cmd adds.Begin) (addevent.Record, error)
	Done(ctx context.Context, cmd adds.Done) (addevent.Record, error)
	Get(ctx context.Context, q adds.Get) (addevent.Record, error)
	List(ctx context.Context, q adds.List) ([]addevent.Record, error)
}

// mem0EventJSON is an add's event: where its extraction stands and what it wrote.
type mem0EventJSON struct {
	ID        string           `json:"id" doc:"The event's id."`
	EventType string           `json:"event_type" doc:"Always ADD."`
	Status    string           `json:"status" doc:"PENDING, SUCCEEDED or FAILED."`
	UserID    string           `json:"user_id" doc:"The user the add was about."`
	Results   []mem0ResultJSON `json:"results" doc:"The memory changes the add made (ADD, UPDATE, DELETE, NOOP)."`
	Error     *string          `json:"error" doc:"Why it FAILED; null otherwise."`
	CreatedAt string           `json:"created_at" doc:"When the add was received."`
	UpdatedAt string           `json:"updated_at" doc:"When it last moved."`
}

// mem0EventPageJSON is a page of a user's (or the tenant's) adds, newest first.
type mem0EventPageJSON struct {
	Count    int             `json:"count" doc:"How many adds this page and the pages before it hold."`
	Next     *string         `json:"next" doc:"The next page's URL; null on the last."`
	Previous *string         `json:"previous" doc:"The previous page's URL; null on the first."`
	Results  []mem0EventJSON `json:"results" doc:"The adds, newest first."`
}

func toEventJSON(r addevent.Record) mem0EventJSON {
	out := mem0EventJSON{ID: r.ID, EventType: "ADD", Status: string(r.Status), UserID: r.Scope.User,
		Results: toResultsJSON(r.Results), CreatedAt: stamp(r.CreatedAt), UpdatedAt: stamp(r.UpdatedAt)}
	if r.Error != "" {
		out.Error = strPtr(r.Error)
	}
	return out
}

func toResultsJSON(results []addevent.Result) []mem0ResultJSON {
	out := make([]mem0ResultJSON, len(results))
	for i, r := range results {
		out[i] = mem0ResultJSON{ID: r.MemoryID, Event: string(r.Change), Data: mem0ResultDataJSON{Memory: r.Memory.Content}}
	}
	return out
}

// getEvent is GET /v1/event/{event_id}/. An add of a user the key does not
// reach is not found, as one of another tenant is.
func (h *Handler) getEvent(c call) (any, error) {
	id := c.r.PathValue("event_id")
	rec, err := h.deps.Adds.Get(c.ctx(), adds.Get{Tenant: c.tenant, ID: id})
	if err == nil && !h.reaches(c, rec.Scope.User) {
		return nil, notFound("event " + strconv.Quote(clip(id)) + " not found")
	}
	if err != nil {
		return nil, notFoundAs(err, "event "+strconv.Quote(clip(id))+" not found")
	}
	return toEventJSON(rec), nil
}

// listEvents is GET /v1/events/: the adds of the user_id named (of every user
// the key reaches without one), newest first, a page at a time.
func (h *Handler) listEvents(c call) (any, error) {
	q := c.r.URL.Query()
	page, size, err := paging(q)
	if err != nil {
		return nil, err
	}
	user := q.Get("user_id")
	if user != "" {
		if _, err := h.scope(c, user); err != nil {
			return nil, err
		}
	}
	return h.eventPage(c, user, page, size)
}

// eventPage reads the page, and when it is full the first add after it, to
// know whether a next page follows.
func (h *Handler) eventPage(c call, user string, page, size int) (mem0EventPageJSON, error) {
	recs, err := h.deps.Adds.List(c.ctx(), adds.List{Tenant: c.tenant, User: user, Page: page, PageSize: size})
	if err != nil {
		return mem0EventPageJSON{}, err
	}
	var more []addevent.Record
	if len(recs) == size {
		more, err = h.deps.Adds.List(c.ctx(), adds.List{Tenant: c.tenant, User: user, Page: page*size + 1, PageSize: 1})
		if err != nil {
			return mem0EventPageJSON{}, err
		}
	}
	out := mem0EventPageJSON{Count: (page-1)*size + len(recs), Results: []mem0EventJSON{}}
	for _, r := range recs {
		if h.reaches(c, r.Scope.User) {
			out.Results = append(out.Results, toEventJSON(r))
		}
	}
	if len(more) > 0 {
		out.Next = pageLink(c, page+1, size)
	}
	if page > 1 {
		out.Previous = pageLink(c, page-1, size)
	}
	return out, nil
}

// reaches says whether the request's key reaches the user.
func (h *Handler) reaches(c call, user string) bool {
	return h.opts.Reaches == nil || h.opts.Reaches(c.ctx(), user)
}

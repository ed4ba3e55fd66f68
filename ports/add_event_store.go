package ports

import (
	"context"

	"engram/domain/addevent"
)

// AddEventStore keeps the record of each add (addevent.Record): which messages it
// posted and, once they are extracted, what it did to which memories. An add's id
// is unique across the server, so a client that got it reads the add without
// naming its user.
type AddEventStore interface {
	// Create stores a new add. ErrConflict when the id is taken.
	Create(ctx context.Context, r addevent.Record) error

	// Get returns the tenant's add with this id. ErrNotFound when absent or
	// another tenant's.
	Get(ctx context.Context, tenant, id string) (addevent.Record, error)

	// Finish stores the status, results, error and update time of an add that
	// has finished. An add stored as finished already is left as it is (the
	// first outcome stays), and Finish reports it with done false.
	Finish(ctx context.Context, r addevent.Record) (done bool, err error)

	// List returns the tenant's adds newest first (of one user when q.User is
	// set), one page.
	List(ctx context.Context, tenant string, q AddEventQuery) ([]addevent.Record, error)
}

// AddEventQuery is a page of AddEventStore.List.
type AddEventQuery struct {
	User   string // "": every user of the tenant
	Offset int
	Limit  int // 1..1000; 0: 100
}

package bootstrap

import (
	"go.uber.org/fx"

	"engram/adapters/sqlstore"
	"engram/app/adds"
	"engram/domain/erasure"
	"engram/ports"
)

// addsModule is the record of each add (app/adds): its SQL store, the use cases
// over it and the message log, and the store's share of a user's erasure.
var addsModule = fx.Module("adds",
	fx.Provide(
		fx.Annotate(sqlstore.NewAddEventStore, fx.As(fx.Self()), fx.As(new(ports.AddEventStore))),
		newAddsService,
	),
	AsPurger("add_events", erasure.PhaseTruth, func(s *sqlstore.AddEventStore) ports.UserPurger { return s }),
)

func newAddsService(events ports.AddEventStore, msgs *sqlstore.MessageStore, clk ports.Clock, ids ports.IDs) *adds.Service {
	return adds.New(events, msgs, clk, ids)
}

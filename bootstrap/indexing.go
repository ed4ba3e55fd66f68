package bootstrap

import (
	"go.uber.org/fx"

	"engram/adapters/httpapi"
	"engram/adapters/metrics"
	"engram/adapters/sqlstore"
	"engram/app/indexing"
	"engram/ports"
)

// indexingModule is what every role shares of vector sync: the reindex use case
// and its route, and the backlog metrics. The queue the indexer claims from and
// the signal in-process writes raise are the storage module's.
var indexingModule = fx.Module("indexing",
	fx.Provide(
		func(store ports.VectorRequeuer, clk ports.Clock, sig *indexing.Signal) *indexing.Reindexer {
			return indexing.NewReindexer(store, clk, sig.Notify)
		},
		AsRoute(adminRoutes),
	),
	fx.Invoke(func(x *metrics.Indexing, queue *sqlstore.VectorQueue) { x.Backlog(queue.Backlog) }),
)

func adminRoutes(r *indexing.Reindexer) Route {
	return func(api *httpapi.API) { httpapi.RegisterAdmin(api, r) }
}

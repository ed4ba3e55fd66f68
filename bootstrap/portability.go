package bootstrap

import (
	"go.uber.org/fx"

	"engram/adapters/httpapi"
	"engram/adapters/sqlstore"
	"engram/app/indexing"
	"engram/app/users"
	"engram/ports"
)

// portabilityModule is the export of everything stored about a user and its
// import (GET /v1/users/{user}/export, POST /v1/users/{user}/import): the SQL
// truth tables' rows, the sessions of the session store in use, authorised and
// audited as profile reads are.
var portabilityModule = fx.Module("portability",
	fx.Provide(newPortability, AsRoute(portabilityRoutes)),
)

// sessionTransfer lists sessions through the store the use cases call and moves
// them whole through the store that holds them: Redis when configured, else SQL.
type sessionTransfer struct {
	ports.SessionStore
	ports.SessionImporter
}

type portabilityParams struct {
	fx.In
	Records  *sqlstore.UserRecords
	Org      *sqlstore.OrgStore
	Reports  *sqlstore.ReportStore
	Memories *sqlstore.MemoryStore
	Messages *sqlstore.MessageStore
	Sessions *sessionStores
	Erasures ports.ErasureStore
	Indexer  *indexing.LexicalIndexer
	Clock    ports.Clock
	IDs      ports.IDs
}

func newPortability(p portabilityParams) *users.Portability {
	var importer ports.SessionImporter = p.Sessions.sql
	if p.Sessions.redis != nil {
		importer = p.Sessions.redis
	}
	return users.NewPortability(users.PortabilityDeps{
		Records:  p.Records,
		Sessions: sessionTransfer{SessionStore: p.Sessions.store, SessionImporter: importer},
		Managers: p.Org,
		Audit:    p.Reports,
		Erasing:  p.Erasures,
		Memories: p.Memories,
		Messages: p.Messages,
		Indexer:  p.Indexer,
		Clock:    p.Clock,
		IDs:      p.IDs,
	})
}

func portabilityRoutes(p *users.Portability) Route {
	return func(api *httpapi.API) { httpapi.RegisterPortability(api, p) }
}

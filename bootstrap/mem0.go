package bootstrap

import (
	"log/slog"

	"go.uber.org/fx"

	"engram/adapters/httpapi"
	"engram/adapters/httpapi/mem0api"
	"engram/adapters/metrics"
	"engram/app/adds"
	"engram/app/memories"
	"engram/app/messages"
	"engram/app/users"
	"engram/bootstrap/config"
	"engram/ports"
)

// mem0Module is the mem0-compatible API (adapters/httpapi/mem0api) at /mem0: routes
// over the memory, message, search, user and erasure use cases.
var mem0Module = fx.Module("mem0",
	fx.Provide(AsRoute(mem0Routes)),
)

type mem0Params struct {
	fx.In
	Config   config.Config
	Log      *slog.Logger
	Memories *memories.Service
	Finder   *memories.Finder
	Messages *messages.Service
	Search   metrics.Searcher
	Users    *users.Service
	Eraser   metrics.Eraser
	Adds     *adds.Service
	IDs      ports.IDs
	Clock    ports.Clock
}

func mem0Routes(p mem0Params) Route {
	return func(api *httpapi.API) {
		h := mem0api.New(mem0api.Deps{Memories: p.Memories, Finder: p.Finder, Search: p.Search, Messages: p.Messages, Users: p.Users,
			Eraser: p.Eraser, Adds: p.Adds, IDs: p.IDs, Clock: p.Clock},
			mem0api.Options{Tenant: httpapi.Tenant, Reaches: httpapi.Reaches, RequestID: httpapi.RequestID,
				MaxBodyBytes: p.Config.HTTP.MaxBodyBytes, Logger: p.Log})
		routes := h.Routes()
		ops := make([]httpapi.FacadeOperation, len(routes))
		for i, r := range routes {
			ops[i] = httpapi.FacadeOperation{ID: r.ID, Method: r.Method, Path: r.Path, Summary: r.Summary, Description: r.Description,
				Params: r.Params, Query: r.Query, Body: r.Body, Response: r.Response, Handler: r.Handler}
		}
		httpapi.MountFacade(api, httpapi.Facade{Tag: "mem0",
			Description: "The mem0 Platform API as mem0's own clients (npm mem0ai 2.x and 3.x, PyPI mem0ai) call it: " +
				"set the client's host to <engram>/mem0. \"Authorization: Token <engram API key>\"; errors are {\"detail\"}; " +
				"what engram does not do (webhooks, projects, feedback, exports) answers 501.",
			Scheme: "Token", ClientHeader: "X-Mem0-Client", Operations: ops,
			Prefix: mem0api.Prefix, Fallback: h.Unsupported(), Refuse: mem0api.Refuse})
	}
}

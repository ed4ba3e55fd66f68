package bootstrap

import (
	"engram/adapters/console"
	"engram/adapters/httpapi"
	"engram/adapters/metrics"
	"engram/app/auth"
	"engram/bootstrap/config"
)

// consoleRoutes serves the web console with the API: its page and files need no
// key (they hold no data; the page asks for one when the API does), its figures
// the same key as /v1.
func consoleRoutes(cfg config.Config, m *metrics.Metrics, authn *auth.Authenticator) Route {
	return func(api *httpapi.API) {
		page := console.Handler()
		api.Mount("GET "+console.Path, page)
		api.Mount("GET "+console.Path+"/", page)
		facts := func() console.Facts { return consoleFacts(cfg, authn.Open()) }
		api.Mount("GET "+console.OpsPath, api.Authenticated(console.OpsHandler(facts, m.Registry, api.InternalError)))
	}
}

// consoleFacts are the start-up line's facts, for the operations page.
func consoleFacts(cfg config.Config, open bool) console.Facts {
	kind, _ := dataLocation(cfg)
	f := console.Facts{
		Version: readBuildInfo().Version, Roles: cfg.Roles, Data: kind, Sessions: "sql",
		VectorBackend: cfg.Vector.Backend, Embedder: cfg.Embedding.Provider, Extractor: cfg.LLM.Provider, Auth: "api_keys",
	}
	if cfg.Redis.Addr != "" {
		f.Sessions = "redis"
	}
	if cfg.Embedding.Provider != "local" {
		f.Embedder += " " + cfg.Embedding.Model
	}
	if cfg.LLM.Provider != "rules" {
		f.Extractor += " " + cfg.LLM.Model
	}
	if open {
		f.Auth = "open"
	}
	return f
}

package httpapi

import (
	"context"
	"net/http"
	"time"
)

// MCPPath is where the MCP endpoint is served.
const MCPPath = "/mcp"

// UserHeader names the default user of an MCP connection.
const UserHeader = "X-Engram-User"

// MountMCP serves the MCP endpoint (streamable HTTP) at /mcp. It goes through the
// edge like every route (request id, access log) and is authenticated like /v1: a
// missing or wrong key is a 401 problem, and the handler finds the tenant with
// Tenant. It is outside huma, so outside the OpenAPI document and the edge's input
// hygiene: MCP is JSON-RPC, and the MCP server checks tool arguments through the
// Toolbox, as POST …/tools/{name} does. Only POST is routed: MCP servers that keep
// no sessions answer GET and DELETE with 405, and the edge's 405 is a problem with
// Allow like every other.
//
// Its requests are observed like an operation's, as operation "mcp".
func MountMCP(api *API, h http.Handler) {
	api.mux.Handle(http.MethodPost+" "+MCPPath, observed(api.opts.Observer, "mcp", authenticated(api.authn, api.opts.Logger, h)))
}

// observed is observe for a handler outside huma.
func observed(o Observer, operation string, h http.Handler) http.Handler {
	if o == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		status := rec.status
		if status == 0 {
			status = http.StatusOK
		}
		o.ObserveRequest(operation, status, time.Since(start))
	})
}

// Tenant is the tenant a request authenticated as, or "" outside one.
func Tenant(ctx context.Context) string { return tenantFrom(ctx) }

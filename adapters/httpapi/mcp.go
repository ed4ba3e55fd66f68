package httpapi

import (
	"bytes"
	"io"
	"net/http"
	"time"
)

// MCPPath is where the MCP endpoint is served.
const MCPPath = "/mcp"

// UserHeader names the user an MCP connection is pinned to.
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
	Mount(api, http.MethodPost+" "+MCPPath, "mcp", readWholeBody(api.opts.MaxBodyBytes, h))
}

// Mount serves a handler outside huma (MCP, a compatibility surface that speaks
// its client's protocol) at pattern, the way /v1 is served: through the edge,
// authenticated and rate limited, with the headers that name a user checked
// against the key (reach.go), and observed as operation. A handler that names the
// user in its own arguments asks Reaches before it acts.
func Mount(api *API, pattern, operation string, h http.Handler) {
	api.mux.Handle(pattern, observed(api.opts.Observer, operation,
		authenticated(api.authn, api.limits, api.opts.Logger, writeProblem, reachHeaders(h))))
}

// readWholeBody reads the JSON-RPC body before the MCP server sees it, so that a
// body that does not arrive within the edge's deadline is a 408 problem, and one
// over the limit a 413, as on every other route.
func readWholeBody(limit int64, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, failure, msg := readLimited(r.Body, limit)
		if failure != 0 {
			writeProblem(w, r, failure.status(), msg)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	})
}

// MCPIdentity is who an MCP request acts for: its key's tenant, and the user the
// connection is pinned to: the X-Engram-User header, else the one user a
// user-scoped key reaches; "" when neither names one (then every tool call names
// its user).
func MCPIdentity(r *http.Request) (tenant, user string) {
	who := principalFrom(r.Context())
	if user = r.Header.Get(UserHeader); user == "" {
		user = who.User
	}
	return who.Tenant, user
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

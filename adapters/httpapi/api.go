// Package httpapi is engram's HTTP API on huma v2: typed operations whose tags drive
// validation and the OpenAPI 3.1 document, authentication, and the one place where
// errors become HTTP status codes (RFC 9457 problem+json).
//
// It calls app/ use cases and knows nothing of storage or drivers.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	"engram/adapters/httpapi/apidocs"
	"engram/app/auth"
)

// Version is the API version in the OpenAPI document.
const Version = "1.0.0"

// Options shape the API.
type Options struct {
	MaxBodyBytes int64        // request bodies above this are refused with 413
	Logger       *slog.Logger // 5xx causes are logged here, never sent to clients
	Observer     Observer     // request metrics; nil for none
	Version      string       // the binary's version, reported by /healthz
	// BodyTimeout bounds the arrival of a request body (408 past it);
	// WriteTimeout how long one write of a response may block. 0: no bound.
	BodyTimeout, WriteTimeout time.Duration
	// RateLimit is the requests per second each API key may make, with a burst
	// of one second's worth; past it, 429 with Retry-After. 0: no limit.
	RateLimit float64
}

// Observer receives one call per finished request.
type Observer interface {
	ObserveRequest(operation string, status int, elapsed time.Duration)
}

// API is the huma API plus the /v1 group that requires authentication.
type API struct {
	Root    huma.API // unauthenticated probes without input (health, readiness)
	V1      huma.API // /v1: authenticated, and every input string checked (hygiene)
	handler http.Handler
	opts    Options
	erasure Erasure        // memory_delete's ?purge=true; set by RegisterErasure
	mux     *http.ServeMux // for routes outside huma (MountMCP)
	authn   Authenticator
	limits  *keyLimits // nil: no rate limit
}

// Handler serves every route; use it as the http.Server's handler.
func (a *API) Handler() http.Handler { return a.handler }

// New builds the API on a standard library mux. Operations are added with the
// Register* functions; the mux also serves /openapi.json and /docs. Every request,
// routed by huma or by the mux alone, passes through the edge: request id, access
// log, 404/405 as problems. Every /v1 operation is authenticated, then its input
// checked by hygiene before huma decodes it.
func New(mux *http.ServeMux, opts Options, authn Authenticator) *API {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	installErrorDetail()
	installStrictCasing()
	cfg := huma.DefaultConfig("engram", Version)
	cfg.CreateHooks = nil // no "$schema" links in bodies: the documented shapes are the contract
	cfg.DocsPath = ""     // huma's page loads its viewer from a CDN; ours is embedded (apidocs)
	cfg.Info.Description = "Long-term and short-term memory for LLM agents. Errors are RFC 9457 problem+json " +
		"with the request's id; every request may send an X-Request-ID, and every response echoes one."
	cfg.Servers = []*huma.Server{{URL: "/", Description: "This server: paths are relative to where this document is served."}}
	cfg.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		"bearer": {Type: "http", Scheme: "bearer", Description: "An engram API key; it names the tenant."},
	}
	cfg.Transformers = append(cfg.Transformers, stampRequestID)
	handler := newEdge(mux, opts)
	root := humago.New(handler, cfg)
	root.UseMiddleware(recordRoute, observe(root, opts.Observer))
	v1 := huma.NewGroup(root, "/v1")
	limits := newKeyLimits(opts.RateLimit)
	v1.UseMiddleware(authenticate(root, authn, limits, opts.Logger), reachUsers(root), hygiene(root))
	v1.UseModifier(documentCommonErrors(root.OpenAPI().Components.Schemas))
	docs := apidocs.Handler(apidocs.Options{Title: "engram", Path: "/docs", Spec: "/openapi.json"})
	mux.Handle("GET /docs", docs)
	mux.Handle("GET /docs/assets/", docs)
	return &API{Root: root, V1: v1, handler: handler, opts: opts, mux: mux, authn: authn, limits: limits}
}

// register adds an authenticated /v1 operation. It applies the configured body
// limit: huma reads the limit from the operation it was given, so a group modifier
// cannot change it. An operation that sets its own limit keeps it.
func register[I, O any](api *API, op huma.Operation, handler func(context.Context, *I) (*O, error)) {
	if op.MaxBodyBytes == 0 {
		op.MaxBodyBytes = api.opts.MaxBodyBytes
	}
	if op.BodyReadTimeout == 0 {
		// The edge bounds the body's arrival, and hygiene has read it whole before
		// huma would set its own deadline, which could then only cut a long
		// handler short.
		op.BodyReadTimeout = -1
	}
	huma.Register(api.V1, op, handler)
}

func observe(api huma.API, o Observer) func(huma.Context, func(huma.Context)) {
	return func(ctx huma.Context, next func(huma.Context)) {
		if o == nil {
			next(ctx)
			return
		}
		start := time.Now()
		next(ctx)
		op := "unknown"
		if ctx.Operation() != nil {
			op = ctx.Operation().OperationID
		}
		status := ctx.Status()
		if status == 0 {
			status = http.StatusOK
		}
		o.ObserveRequest(op, status, time.Since(start))
	}
}

type ctxKey int

const principalKey ctxKey = iota

// principalFrom returns who the auth middleware established the request acts as.
func principalFrom(ctx context.Context) auth.Principal {
	p, _ := ctx.Value(principalKey).(auth.Principal)
	return p
}

// tenantFrom returns the tenant the auth middleware established.
func tenantFrom(ctx context.Context) string { return principalFrom(ctx).Tenant }

package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"engram/app/auth"
	"engram/ports"
)

// Authenticator maps an API key to who it acts as (app/auth implements it).
type Authenticator interface {
	Authenticate(ctx context.Context, presented string) (auth.Principal, error)
}

func authenticate(api huma.API, authn Authenticator, limits *keyLimits, log *slog.Logger) func(huma.Context, func(huma.Context)) {
	return func(ctx huma.Context, next func(huma.Context)) {
		who, refused := checkKey(ctx.Context(), authn, limits, log, ctx.Header("Authorization"))
		if refused != nil {
			for name, value := range refused.headers() {
				ctx.SetHeader(name, value)
			}
			_ = huma.WriteErr(api, ctx, refused.failure.status(), refused.detail)
			return
		}
		next(huma.WithValue(ctx, principalKey, who))
	}
}

// authenticated is authenticate for a handler outside huma (MCP, a compatibility
// surface), its refusals written by refuse: a problem, or the shape of the
// surface's client.
func authenticated(authn Authenticator, limits *keyLimits, log *slog.Logger, refuse Refusal, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who, refused := checkKey(r.Context(), authn, limits, log, r.Header.Get("Authorization"))
		if refused != nil {
			for name, value := range refused.headers() {
				w.Header().Set(name, value)
			}
			refuse(w, r, refused.failure.status(), refused.detail)
			return
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKey, who)))
	})
}

// refusal is why the edge turned a request away before any operation ran.
type refusal struct {
	failure    edgeFailure
	detail     string
	retryAfter int // seconds, for a rate-limited key
}

func (r *refusal) headers() map[string]string {
	switch r.failure {
	case noValidKey:
		return map[string]string{"WWW-Authenticate": `Bearer realm="engram"`}
	case rateLimited:
		return map[string]string{"Retry-After": strconv.Itoa(r.retryAfter)}
	}
	return nil
}

// checkKey authenticates the Authorization header's key and applies its rate
// limit: who it acts as, or why the request is refused. The access log learns
// the tenant.
func checkKey(ctx context.Context, authn Authenticator, limits *keyLimits, log *slog.Logger, header string) (auth.Principal, *refusal) {
	presented := ""
	if header != "" {
		scheme, token, ok := strings.Cut(header, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			return auth.Principal{}, &refusal{failure: noValidKey, detail: "the Authorization header must be \"Bearer <api key>\""}
		}
		presented = strings.TrimSpace(token)
	}
	who, err := authn.Authenticate(ctx, presented)
	if err != nil {
		if errors.Is(err, ports.ErrUnauthenticated) {
			return auth.Principal{}, &refusal{failure: noValidKey, detail: "a valid API key is required: send \"Authorization: Bearer <api key>\""}
		}
		log.ErrorContext(ctx, "authenticate", "error", err, "request_id", RequestID(ctx))
		return auth.Principal{}, &refusal{failure: keyUncheckable, detail: "cannot check the API key right now; retry shortly"}
	}
	if x := exchangeFrom(ctx); x != nil {
		x.tenant = who.Tenant
	}
	if wait, ok := limits.allow(who.KeyID); !ok {
		return auth.Principal{}, &refusal{failure: rateLimited, retryAfter: wait,
			detail: "this API key made more requests than the " + limits.describe() + " it may make; retry after " + strconv.Itoa(wait) + " s"}
	}
	return who, nil
}

package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"engram/ports"
)

// Authenticator maps an API key to its tenant (app/auth implements it).
type Authenticator interface {
	Authenticate(ctx context.Context, presented string) (tenant string, err error)
}

func authenticate(api huma.API, authn Authenticator, log *slog.Logger) func(huma.Context, func(huma.Context)) {
	return func(ctx huma.Context, next func(huma.Context)) {
		tenant, failure, msg := checkKey(ctx.Context(), authn, log, ctx.Header("Authorization"))
		if failure != 0 {
			if failure == noValidKey {
				ctx.SetHeader("WWW-Authenticate", `Bearer realm="engram"`)
			}
			_ = huma.WriteErr(api, ctx, failure.status(), msg)
			return
		}
		next(huma.WithValue(ctx, tenantKey, tenant))
	}
}

// authenticated is authenticate for a handler outside huma (the MCP endpoint).
func authenticated(authn Authenticator, log *slog.Logger, h http.Handler) http.Handler {
	return authenticatedWith(authn, log, writeProblem, h)
}

// authenticatedWith is authenticated with refusals written by refuse.
func authenticatedWith(authn Authenticator, log *slog.Logger, refuse Refusal, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tenant, failure, msg := checkKey(r.Context(), authn, log, r.Header.Get("Authorization"))
		if failure != 0 {
			if failure == noValidKey {
				w.Header().Set("WWW-Authenticate", `Bearer realm="engram"`)
			}
			refuse(w, r, failure.status(), msg)
			return
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), tenantKey, tenant)))
	})
}

// checkKey authenticates the Authorization header's key: the tenant, or the
// failure and detail of the refusal. The access log learns the tenant.
func checkKey(ctx context.Context, authn Authenticator, log *slog.Logger, header string) (tenant string, failure edgeFailure, msg string) {
	presented := ""
	if header != "" {
		scheme, token, ok := strings.Cut(header, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			return "", noValidKey, "the Authorization header must be \"Bearer <api key>\""
		}
		presented = strings.TrimSpace(token)
	}
	tenant, err := authn.Authenticate(ctx, presented)
	if err != nil {
		if errors.Is(err, ports.ErrUnauthenticated) {
			return "", noValidKey, "a valid API key is required: send \"Authorization: Bearer <api key>\""
		}
		log.ErrorContext(ctx, "authenticate", "error", err, "request_id", RequestID(ctx))
		return "", keyUncheckable, "cannot check the API key right now; retry shortly"
	}
	if x := exchangeFrom(ctx); x != nil {
		x.tenant = tenant
	}
	return tenant, 0, ""
}

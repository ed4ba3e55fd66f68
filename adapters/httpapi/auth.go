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
		presented := ""
		if h := ctx.Header("Authorization"); h != "" {
			scheme, token, ok := strings.Cut(h, " ")
			if !ok || !strings.EqualFold(scheme, "Bearer") {
				ctx.SetHeader("WWW-Authenticate", `Bearer realm="engram"`)
				_ = huma.WriteErr(api, ctx, http.StatusUnauthorized, "the Authorization header must be \"Bearer <api key>\"")
				return
			}
			presented = strings.TrimSpace(token)
		}
		tenant, err := authn.Authenticate(ctx.Context(), presented)
		if err != nil {
			if errors.Is(err, ports.ErrUnauthenticated) {
				ctx.SetHeader("WWW-Authenticate", `Bearer realm="engram"`)
				_ = huma.WriteErr(api, ctx, http.StatusUnauthorized, "a valid API key is required: send \"Authorization: Bearer <api key>\"")
				return
			}
			log.ErrorContext(ctx.Context(), "authenticate", "error", err, "request_id", RequestID(ctx.Context()))
			_ = huma.WriteErr(api, ctx, http.StatusServiceUnavailable, "cannot check the API key right now; retry shortly")
			return
		}
		if x := exchangeFrom(ctx.Context()); x != nil {
			x.tenant = tenant
		}
		next(huma.WithValue(ctx, tenantKey, tenant))
	}
}

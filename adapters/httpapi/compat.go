package httpapi

import (
	"context"
	"net/http"
)

// Refusal writes a refusal of the edge (no valid key, a key that cannot be
// checked now, a rate limit, a user out of the key's reach) in the error shape
// of the route's client.
type Refusal func(w http.ResponseWriter, r *http.Request, status int, message string)

// MountCompat serves a compatibility surface: another API's routes (mux
// patterns) that speak their client's shapes and errors, such as OpenAI's
// Conversations API. Each route is served as Mount serves one — through the
// edge, authenticated and rate limited like /v1, a user named in its path
// ({user}) or in a header checked against the key — with its refusals written
// by refuse. It is outside huma, so outside the OpenAPI document and the edge's
// input hygiene: the surface checks its own input. Requests are observed as
// operation name.
func MountCompat(api *API, name string, routes map[string]http.Handler, refuse Refusal) {
	for pattern, h := range routes {
		api.mux.Handle(pattern, observed(api.opts.Observer, name,
			authenticated(api.authn, api.limits, api.opts.Logger, refuse, reachNamedUsers(refuse, h))))
	}
}

// reachNamedUsers applies the rule for the users a request names, in its path
// ({user}) and in the headers that name one, to a compatibility surface's route.
func reachNamedUsers(refuse Refusal, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who := principalFrom(r.Context())
		named := []string{r.PathValue("user")}
		for name := range userHeaders {
			named = append(named, r.Header.Get(name))
		}
		for _, user := range named {
			if user != "" && !who.Reaches(user) {
				refuse(w, r, userOutOfReach.status(), outOfReach(who.User, user))
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// Tenant is the tenant the key of a request served with MountCompat names.
func Tenant(ctx context.Context) string { return tenantFrom(ctx) }

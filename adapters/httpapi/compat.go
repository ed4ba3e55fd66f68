package httpapi

import "net/http"

// Refusal writes a refusal of the edge (no valid key, a key that cannot be
// checked now) in a compatibility surface's own error shape.
type Refusal func(w http.ResponseWriter, r *http.Request, status int, message string)

// MountCompat serves a compatibility surface: another API's routes (mux
// patterns) that speak their client's shapes and errors, such as OpenAI's
// Conversations API. Each route goes through the edge like every other (request
// id, access log) and is authenticated like /v1, its refusals written by refuse;
// it is outside huma, so outside the OpenAPI document and the edge's input
// hygiene: the surface checks its own input. Requests are observed as operation
// name.
func MountCompat(api *API, name string, routes map[string]http.Handler, refuse Refusal) {
	for pattern, h := range routes {
		api.mux.Handle(pattern, observed(api.opts.Observer, name, authenticatedWith(api.authn, api.opts.Logger, refuse, h)))
	}
}

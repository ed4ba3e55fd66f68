package httpapi

import "net/http"

// Mount serves h at pattern ("GET /console/") on the API's router, outside huma:
// a page is no API operation, so it stays out of the OpenAPI document, and still
// passes the edge (request id, access log, 404 and 405 as problems).
func (a *API) Mount(pattern string, h http.Handler) {
	a.mux.Handle(pattern, h)
}

// Authenticated wraps h in the API's key check, as every /v1 operation is: a
// missing or unknown key is a 401 problem, a key over its rate limit a 429; open
// mode lets every request through.
func (a *API) Authenticated(h http.Handler) http.Handler {
	return authenticated(a.authn, a.limits, a.opts.Logger, writeProblem, h)
}

// InternalError answers a failure of a handler mounted with Mount as every route
// answers a 500: a problem naming the request id only, the cause in the API's log
// under that id.
func (a *API) InternalError(w http.ResponseWriter, r *http.Request, err error) {
	a.opts.Logger.Error("request failed", "request_id", RequestID(r.Context()), "err", err)
	writeProblem(w, r, mountedFailed.status(), internalDetail(RequestID(r.Context())))
}

// Package headers is an HTTP client transport for tests that sets the same
// headers on every request, as a client configured with "Authorization: Bearer …"
// or "X-Engram-User" does (MCP clients take an *http.Client, not headers).
//
// It imports only the standard library and is meant for _test.go files.
package headers

import "net/http"

// Transport sets its headers on every request, then sends it with
// http.DefaultTransport.
type Transport map[string]string

// RoundTrip implements http.RoundTripper.
func (h Transport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// Client is an *http.Client whose requests carry h.
func Client(h map[string]string) *http.Client {
	return &http.Client{Transport: Transport(h)}
}

// Package memory is the long-term memory of one user: the entity, its key and type
// rules, the noise rules, its lifecycle (expiry, deactivation, vector bookkeeping),
// its flags (instruction-like content, recomputed on every change of content) and
// the events that record every change.
//
// It is pure Go: it imports only the standard library and does no I/O. Storage, HTTP
// and vectors live in adapters; use cases in app/.
package memory

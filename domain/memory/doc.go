// Package memory is the long-term memory of one user: the entity, its key and type
// rules, the noise rules, its lifecycle (expiry, deactivation, vector bookkeeping),
// its flags (instruction-like content, recomputed on every change of content) and
// the events that record every change.
//
// It is pure Go and does no I/O. It imports the standard library and, for the NFKC
// form of keys that the standard library lacks, golang.org/x/text/unicode/norm.
// Storage, HTTP and vectors live in adapters; use cases in app/.
package memory

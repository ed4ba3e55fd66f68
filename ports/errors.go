package ports

import "errors"

// The errors a port may return, wrapped with %w and some context. The HTTP adapter
// maps them to status codes in one place; validation failures come from
// domain/invalid instead.
var (
	// ErrNotFound: the thing does not exist in the caller's scope. Another tenant's
	// data is also "not found", so existence never leaks across tenants.
	ErrNotFound = errors.New("not found")
	// ErrConflict: the write lost a race or breaks a uniqueness rule; retrying with
	// fresh data may succeed.
	ErrConflict = errors.New("conflict")
	// ErrUnavailable: a dependency (database, vector store, LLM) cannot answer now.
	ErrUnavailable = errors.New("unavailable")
	// ErrUnauthenticated: no valid credentials were presented.
	ErrUnauthenticated = errors.New("unauthenticated")
	// ErrForbidden: the caller is known but may not do this (manager-only calls).
	ErrForbidden = errors.New("forbidden")
	// ErrNoChange: a store's update callback decided there is nothing to write.
	ErrNoChange = errors.New("no change")
)

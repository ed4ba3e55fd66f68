package ports

import (
	"errors"
	"strconv"
)

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

// NotFoundError names the object that does not exist, in the client's words
// (`memory "diet" not found`), so that a 404 says what is missing without naming
// the layer that looked. It is ErrNotFound under errors.Is.
type NotFoundError struct {
	Kind string // memory, message, job, event, …
	ID   string // the key or id the client sent
}

// NotFound is the error for an object of kind with this id that the caller's scope
// does not hold.
func NotFound(kind, id string) error { return &NotFoundError{Kind: kind, ID: id} }

func (e *NotFoundError) Error() string { return e.Kind + " " + strconv.Quote(e.ID) + " not found" }

// Is makes errors.Is(err, ErrNotFound) true.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// NameNotFound returns NotFound(kind, id) when err is a not-found error that does
// not name its object yet (a store's "sqlstore: get message: not found"), and err
// unchanged otherwise. Use cases call it on what a store returned.
func NameNotFound(err error, kind, id string) error {
	var named *NotFoundError
	if errors.Is(err, ErrNotFound) && !errors.As(err, &named) {
		return NotFound(kind, id)
	}
	return err
}

package mem0api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"engram/domain/invalid"
	"engram/ports"
)

// failure is an error as this surface answers it: mem0's clients read the
// status (400 and 422 validation, 401 authentication, 404 MemoryNotFoundError,
// 413 quota, 429 rate limit) and show "detail" from an application/json body.
type failure struct {
	status int
	detail string
}

func (f *failure) Error() string { return f.detail }

func badRequest(detail string) error { return &failure{status: http.StatusBadRequest, detail: detail} }

func forbidden(detail string) error { return &failure{status: http.StatusForbidden, detail: detail} }

func notFound(detail string) error { return &failure{status: http.StatusNotFound, detail: detail} }

func unsupported(detail string) error {
	return &failure{status: http.StatusNotImplemented, detail: detail}
}

// errorBody is mem0's error body.
type errorBody struct {
	Detail string `json:"detail"`
}

func writeFailure(w http.ResponseWriter, f failure) {
	writeJSON(w, f.status, errorBody{Detail: f.detail})
}

// Refuse writes a refusal of the edge (a missing or wrong key, a key that cannot
// be checked now, a rate limit with its Retry-After, a user the key does not
// reach) in mem0's shape. A wrong key reads as mem0's own "Invalid API key".
func Refuse(w http.ResponseWriter, _ *http.Request, status int, message string) {
	if status == http.StatusUnauthorized {
		message = "Invalid API key: " + message
	}
	writeFailure(w, failure{status: status, detail: message})
}

// failureOf maps a use-case error to its status and detail; it is the one place
// this surface does so. Causes of 5xx are logged, never sent.
func (h *Handler) failureOf(ctx context.Context, err error) failure {
	var (
		f         *failure
		ve        *invalid.Error
		missing   *ports.NotFoundError
		erasing   *ports.ErasingError
		requestID = h.opts.RequestID(ctx)
	)
	switch {
	case errors.As(err, &f):
		return *f
	case errors.As(err, &ve):
		return failure{status: http.StatusBadRequest, detail: ve.Error()}
	case errors.As(err, &missing):
		return failure{status: http.StatusNotFound, detail: missing.Error()}
	case errors.Is(err, ports.ErrNotFound):
		return failure{status: http.StatusNotFound, detail: "not found"}
	case errors.As(err, &erasing):
		return failure{status: http.StatusConflict, detail: erasing.Error() + "; nothing is written for this user until the erasure is done"}
	case errors.Is(err, ports.ErrConflict):
		return failure{status: http.StatusConflict, detail: "a concurrent change conflicted; retry"}
	case errors.Is(err, ports.ErrForbidden):
		return failure{status: http.StatusForbidden, detail: err.Error()}
	case errors.Is(err, ports.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		h.opts.Logger.WarnContext(ctx, "dependency unavailable", "error", err, "request_id", requestID)
		return failure{status: http.StatusServiceUnavailable, detail: "a dependency is unavailable; retry shortly"}
	case errors.Is(err, context.Canceled):
		return failure{status: 499, detail: "the client closed the request"}
	}
	h.opts.Logger.ErrorContext(ctx, "internal error", "error", err, "request_id", requestID)
	return failure{status: http.StatusInternalServerError, detail: "internal error; quote request id " + requestID + " when reporting it"}
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(body)
}

// notFoundAs gives a missing object the detail the client knows it by (its mem0
// id, not engram's key).
func notFoundAs(err error, detail string) error {
	if errors.Is(err, ports.ErrNotFound) {
		return notFound(detail)
	}
	return err
}

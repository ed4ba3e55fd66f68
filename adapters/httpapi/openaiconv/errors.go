package openaiconv

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"engram/domain/invalid"
	"engram/ports"
)

// apiError is the error body of the OpenAI API, which its clients parse: a
// message that says what to fix, a type, the parameter at fault and a code.
type apiError struct {
	Error apiErrorBody `json:"error"`
}

type apiErrorBody struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// failure is an error as this surface answers it.
type failure struct {
	status  int
	kind    string // the error's type
	code    string // empty: null
	param   string // empty: null
	message string
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// writeFailure writes f in the OpenAI error shape.
func writeFailure(w http.ResponseWriter, f failure) {
	writeJSON(w, f.status, apiError{Error: apiErrorBody{Message: f.message, Type: f.kind, Param: strPtr(f.param), Code: strPtr(f.code)}})
}

// Refuse writes a refusal of the edge (a missing or wrong key, a key that cannot
// be checked now, a rate limit, a user the key does not reach) in the OpenAI
// error shape.
func Refuse(w http.ResponseWriter, _ *http.Request, status int, message string) {
	f := failure{status: status, kind: "invalid_request_error", message: message}
	switch status {
	case http.StatusUnauthorized:
		f.code = "invalid_api_key"
	case http.StatusForbidden:
		f.kind, f.code = "permission_error", "forbidden"
	case http.StatusTooManyRequests:
		f.kind, f.code = "rate_limit_error", "rate_limit_exceeded"
	case http.StatusServiceUnavailable, http.StatusInternalServerError:
		f.kind = "server_error"
	}
	writeFailure(w, f)
}

func badRequest(param, message string) failure {
	return failure{status: http.StatusBadRequest, kind: "invalid_request_error", param: param, message: message}
}

// failureOf maps a use-case error to its status and OpenAI error; it is the one
// place this surface does so. Causes of 5xx are logged, never sent.
func failureOf(ctx context.Context, log *slog.Logger, requestID string, err error) failure {
	var (
		ve       *invalid.Error
		notFound *ports.NotFoundError
		erasing  *ports.ErasingError
	)
	switch {
	case errors.As(err, &ve):
		f := badRequest("", ve.Error())
		if len(ve.Fields) > 0 {
			f.param = ve.Fields[0].Field
		}
		return f
	case errors.As(err, &notFound):
		return failure{status: http.StatusNotFound, kind: "invalid_request_error", code: "not_found", message: notFound.Error()}
	case errors.Is(err, ports.ErrNotFound):
		return failure{status: http.StatusNotFound, kind: "invalid_request_error", code: "not_found", message: "the requested object was not found"}
	case errors.As(err, &erasing):
		return failure{status: http.StatusConflict, kind: "invalid_request_error", code: "user_being_erased",
			message: erasing.Error() + "; nothing is written for this user until the erasure is done"}
	case errors.Is(err, ports.ErrConflict):
		return failure{status: http.StatusConflict, kind: "invalid_request_error", code: "conflict",
			message: "an item id is already in this conversation, or a concurrent change conflicted; send new items without ids, or retry"}
	case errors.Is(err, ports.ErrForbidden):
		return failure{status: http.StatusForbidden, kind: "permission_error", code: "forbidden", message: err.Error()}
	case errors.Is(err, ports.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		log.WarnContext(ctx, "dependency unavailable", "error", err, "request_id", requestID)
		return failure{status: http.StatusServiceUnavailable, kind: "server_error", message: "a dependency is unavailable; retry shortly"}
	case errors.Is(err, context.Canceled):
		return failure{status: 499, kind: "invalid_request_error", message: "the client closed the request"}
	}
	log.ErrorContext(ctx, "internal error", "error", err, "request_id", requestID)
	return failure{status: http.StatusInternalServerError, kind: "server_error",
		message: "internal error; quote request id " + requestID + " when reporting it"}
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // items come back as sent, "<" and all
	_ = enc.Encode(body)
}

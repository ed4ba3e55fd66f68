package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/danielgtaylor/huma/v2"

	"engram/domain/invalid"
	"engram/ports"
)

// pathFields and queryFields say where a field named by a validation error came
// from, so the problem's location points at what the client must change.
var pathFields = map[string]bool{"user": true, "key": true, "message_id": true, "session": true, "trace_id": true}

// problem turns a use-case error into the HTTP error huma writes as problem+json.
// It is the only place that maps errors to status codes. in is where fields not in
// the path come from ("body" or "query").
func problem(ctx context.Context, log *slog.Logger, err error, in string) error {
	var ve *invalid.Error
	var erasing *ports.ErasingError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ve):
		details := make([]error, 0, len(ve.Fields))
		for _, f := range ve.Fields {
			where := in
			if pathFields[f.Field] {
				where = "path"
			}
			details = append(details, &huma.ErrorDetail{Message: f.Problem, Location: where + "." + f.Field, Value: f.Value})
		}
		return huma.Error422UnprocessableEntity(describe(ve), details...)
	case errors.Is(err, ports.ErrNotFound):
		return huma.Error404NotFound(err.Error())
	case errors.As(err, &erasing):
		return huma.Error409Conflict(erasing.Error() + "; follow it with GET /v1/jobs/" + erasing.JobID)
	case errors.Is(err, ports.ErrConflict):
		return huma.Error409Conflict(err.Error() + "; retry the request")
	case errors.Is(err, ports.ErrUnauthenticated):
		return huma.Error401Unauthorized("a valid API key is required")
	case errors.Is(err, ports.ErrForbidden):
		return huma.Error403Forbidden(err.Error())
	case errors.Is(err, ports.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		log.WarnContext(ctx, "dependency unavailable", "error", err)
		return huma.Error503ServiceUnavailable("a dependency is unavailable; retry shortly")
	case errors.Is(err, context.Canceled):
		return huma.NewError(499, "the client closed the request")
	default:
		log.ErrorContext(ctx, "internal error", "error", err)
		return huma.Error500InternalServerError("internal error; it has been logged")
	}
}

func describe(ve *invalid.Error) string {
	parts := make([]string, 0, len(ve.Fields))
	for _, f := range ve.Fields {
		parts = append(parts, f.Field+" "+f.Problem)
	}
	return "the request is invalid: " + strings.Join(parts, "; ")
}

// installErrorDetail makes huma's own errors (schema validation, malformed JSON,
// oversize bodies) say in their detail what is wrong, not just "validation failed":
// many clients only log the detail.
var installErrorDetail = sync.OnceFunc(func() {
	base := huma.NewError
	huma.NewError = func(status int, msg string, errs ...error) huma.StatusError {
		if len(errs) > 0 && (msg == "validation failed" || msg == "request body is too large") {
			parts := make([]string, 0, len(errs))
			for _, e := range errs {
				var d *huma.ErrorDetail
				if errors.As(e, &d) && d.Location != "" {
					parts = append(parts, d.Location+": "+d.Message)
				} else if e != nil {
					parts = append(parts, e.Error())
				}
			}
			if len(parts) > 0 {
				msg += ": " + strings.Join(parts, "; ")
			}
		}
		return base(status, msg, errs...)
	}
})

// writeProblem writes a problem+json response outside huma (unknown routes).
func writeProblem(w http.ResponseWriter, status int, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(huma.ErrorModel{
		Title:  http.StatusText(status),
		Status: status,
		Detail: detail,
	})
}

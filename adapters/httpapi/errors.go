package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"

	"engram/app/sessions"
	"engram/app/tools"
	"engram/domain/invalid"
	"engram/domain/profile"
	"engram/ports"
)

// Problem is every error body: RFC 9457 problem+json, with the fields that must
// change and the id of the request, so that a client can quote it.
type Problem struct {
	Type      string              `json:"type,omitempty" format:"uri" default:"about:blank" doc:"A URI reference that identifies the problem type."`
	Title     string              `json:"title,omitempty" example:"Unprocessable Entity" doc:"The status code's text."`
	Status    int                 `json:"status,omitempty" example:"422" doc:"The HTTP status code."`
	Detail    string              `json:"detail,omitempty" example:"validation failed: body.content: expected length <= 1000" doc:"What is wrong and what to change."`
	RequestID string              `json:"request_id,omitempty" example:"01JEXAMPLE8Q3M5Y8T2W6V4C0R" doc:"The request's X-Request-ID; the server's log lines about it carry the same id."`
	Errors    []*huma.ErrorDetail `json:"errors,omitempty" doc:"Each value that must change: where it is (body.content, path.user, query.q), what is wrong, and the value (at most 200 characters of it)."`
}

func (p *Problem) Error() string  { return p.Detail }
func (p *Problem) GetStatus() int { return p.Status }

// ContentType makes JSON problems application/problem+json (RFC 9457).
func (p *Problem) ContentType(ct string) string {
	if ct == "application/json" {
		return "application/problem+json"
	}
	return ct
}

// Limits on what a problem echoes back: an offending value is quoted for the
// client's debugging, but a 900 KB field must not come back as a 900 KB 422.
const (
	maxEcho       = 200  // characters of an offending value
	maxMessageLen = 500  // characters of one error's message
	maxDetailLen  = 2000 // characters of a problem's detail
)

// problem turns a use-case error into the HTTP error huma writes as problem+json.
// It is the only place that maps errors to status codes. A field named by a
// validation error is located in the path when the operation has a path parameter
// of that name, else in in ("body" or "query"), so that the problem points at what
// the client must change.
func problem(ctx context.Context, log *slog.Logger, err error, in string) error {
	if err == nil {
		return nil
	}
	if p := mistakeProblem(ctx, err, in); p != nil {
		return p
	}
	switch {
	case errors.Is(err, ports.ErrUnauthenticated):
		return huma.Error401Unauthorized("a valid API key is required")
	case errors.Is(err, ports.ErrForbidden):
		return huma.Error403Forbidden(err.Error())
	case errors.Is(err, errNoPurge):
		return huma.Error501NotImplemented(err.Error())
	case errors.Is(err, ports.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		log.WarnContext(ctx, "dependency unavailable", "error", err, "request_id", RequestID(ctx))
		return huma.Error503ServiceUnavailable("a dependency is unavailable; retry shortly")
	case errors.Is(err, context.Canceled):
		return huma.NewError(499, "the client closed the request")
	default:
		log.ErrorContext(ctx, "internal error", "error", err, "request_id", RequestID(ctx))
		return huma.Error500InternalServerError(internalDetail(RequestID(ctx)))
	}
}

// mistakeProblem is the problem of an error the client can fix by changing the
// request (422, 404, 409), nil for any other error.
func mistakeProblem(ctx context.Context, err error, in string) error {
	var (
		ve       *invalid.Error
		notFound *ports.NotFoundError
		tool     *toolCallError
	)
	switch {
	case errors.As(err, &tool) && errors.As(err, &ve):
		return huma.Error422UnprocessableEntity(tools.Explain(ve), argumentDetails(ve)...)
	case errors.As(err, &tool) && errors.As(err, &notFound):
		return huma.Error404NotFound(tool.Error()) // with the toolbox's advice
	case errors.As(err, &ve):
		return huma.Error422UnprocessableEntity(describe(ve), fieldDetails(ctx, ve, in)...)
	case errors.Is(err, profile.ErrEmptyPatch):
		return huma.Error422UnprocessableEntity("the patch names no field: send at least one declared field to set, or null to clear it",
			&huma.ErrorDetail{Location: in, Message: "must name at least one declared field"})
	case errors.As(err, &notFound):
		return huma.Error404NotFound(notFound.Error())
	case errors.Is(err, ports.ErrNotFound):
		// A store's not-found that no use case named: say what, never which layer.
		return huma.Error404NotFound("the requested object was not found")
	}
	return conflictProblem(err)
}

// conflictProblem is the 409 of a conflict, saying what to send instead; nil when
// err is no conflict.
func conflictProblem(err error) error {
	var (
		erasing  *ports.ErasingError
		exchange *sessions.ExchangeConflictError
		message  *ports.MessageConflictError
		activity *ports.ActivityConflictError
		deleted  *ports.ConversationDeletedError
	)
	switch {
	case errors.As(err, &erasing):
		return huma.Error409Conflict(erasing.Error() + "; follow it with GET /v1/jobs/" + erasing.JobID)
	case errors.As(err, &deleted): // not a race to retry: the chat was deleted after the message was made
		return huma.Error409Conflict(deleted.Error())
	case errors.As(err, &exchange): // before message: it wraps the conflict of the turn's messages
		return huma.Error409Conflict(exchange.Error() + "; an exchange_id names one turn, so send a new turn with a new exchange_id")
	case errors.As(err, &message):
		// Not a race to retry: the id was used for another message.
		return huma.Error409Conflict(message.Error() + "; a message_id names one message, so send new content with a new message_id")
	case errors.As(err, &activity):
		return huma.Error409Conflict(activity.Error() + "; an event_id names one event, so send a new event with a new event_id")
	case errors.Is(err, ports.ErrConflict):
		return huma.Error409Conflict("the write conflicted with a concurrent change; retry the request")
	}
	return nil
}

// fieldDetails locates each field of a validation error: in the path when the
// operation has a path parameter of that name, else in in.
func fieldDetails(ctx context.Context, ve *invalid.Error, in string) []error {
	details := make([]error, 0, len(ve.Fields))
	x := exchangeFrom(ctx)
	for _, f := range ve.Fields {
		where := in
		if x.inPath(f.Field) {
			where = "path"
		}
		details = append(details, &huma.ErrorDetail{Message: f.Problem, Location: where + "." + f.Field, Value: f.Value})
	}
	return details
}

// argumentDetails locates each field of a tool call's validation error under
// body.arguments (a field named "" is the arguments as a whole).
func argumentDetails(ve *invalid.Error) []error {
	details := make([]error, 0, len(ve.Fields))
	for _, f := range ve.Fields {
		location := strings.TrimSuffix("body.arguments."+f.Field, ".")
		details = append(details, &huma.ErrorDetail{Location: location, Message: f.Problem, Value: f.Value})
	}
	return details
}

// errNoPurge is memory_delete?purge=true on an API that was given no erasure
// (RegisterErasure): the process cannot purge.
var errNoPurge = errors.New("purge is not available in this process")

// toolCallError is the failure of a tool call over HTTP (tools_call): problem
// words its argument errors for the model that made the call (tools.Explain) and
// keeps the advice the toolbox added to a not-found; any other error maps as it
// would without the tool.
type toolCallError struct{ err error }

func (e *toolCallError) Error() string { return e.err.Error() }
func (e *toolCallError) Unwrap() error { return e.err }

// StatusOf is the status problem answers err with. Tests and the documentation
// of the operations use it, so that none restates the mapping.
func StatusOf(err error) int {
	var se huma.StatusError
	if errors.As(problem(context.Background(), slog.New(slog.DiscardHandler), err, "body"), &se) {
		return se.GetStatus()
	}
	return http.StatusOK
}

// edgeFailure is what the edge finds wrong with a request before any operation runs.
type edgeFailure int

const (
	badText          edgeFailure = iota + 1 // NUL or invalid UTF-8 in a string the client sent
	bodyTooLarge                            // declared or read past the operation's limit
	bodyUnreadable                          // e.g. a malformed chunked encoding
	bodyTooSlow                             // the body did not arrive in time
	wrongMethod                             // a known path, another method
	noRoute                                 // no such path
	panicked                                // a handler panicked
	noValidKey                              // no API key, another scheme, or a key nobody issued
	keyUncheckable                          // the key store cannot answer
	unknownParameter                        // a query parameter the operation does not declare
	badName                                 // a JSON name repeated in one object, or in the wrong case
	badNumber                               // a JSON number no float64 holds (1e309)
	rateLimited                             // the key made more requests than ENGRAM_RATE_LIMIT_RPS allows
	userOutOfReach                          // a user-scoped key named another user
	tenantWideOnly                          // a user-scoped key called an operation of the whole tenant
	mountedFailed                           // a handler mounted outside huma could not answer
)

// status maps each failure of the edge to its status code, next to problem's
// mapping of use-case errors.
func (f edgeFailure) status() int {
	switch f {
	case badText:
		return http.StatusUnprocessableEntity
	case bodyTooLarge:
		return http.StatusRequestEntityTooLarge
	case bodyUnreadable, unknownParameter, badName:
		return http.StatusBadRequest
	case badNumber:
		return http.StatusUnprocessableEntity
	case bodyTooSlow:
		return http.StatusRequestTimeout
	case wrongMethod:
		return http.StatusMethodNotAllowed
	case noRoute:
		return http.StatusNotFound
	case noValidKey:
		return http.StatusUnauthorized
	case keyUncheckable:
		return http.StatusServiceUnavailable
	case rateLimited:
		return http.StatusTooManyRequests
	case userOutOfReach, tenantWideOnly:
		return http.StatusForbidden
	}
	return http.StatusInternalServerError
}

// internalDetail is all a client learns of a 500: the cause is in the log, under
// this request id.
func internalDetail(requestID string) string {
	return "internal error; request id " + requestID
}

func describe(ve *invalid.Error) string {
	parts := make([]string, 0, len(ve.Fields))
	for _, f := range ve.Fields {
		parts = append(parts, f.Field+" "+f.Problem)
	}
	return "the request is invalid: " + strings.Join(parts, "; ")
}

// installErrorDetail makes every problem huma writes a *Problem: its own errors
// (schema validation, malformed JSON, oversize bodies) say in their detail what is
// wrong, not just "validation failed", since many clients only log the detail;
// values are clipped; a 415 says what to send; an unexpected 500 is logged with the
// request id and tells the client only that id.
var installErrorDetail = sync.OnceFunc(func() {
	huma.NewError = newProblem
	huma.NewErrorWithContext = func(ctx huma.Context, status int, msg string, errs ...error) huma.StatusError {
		p := newProblem(status, msg, errs...).(*Problem)
		if x := exchangeFrom(ctx.Context()); x != nil {
			p.RequestID = x.id
			if status == http.StatusInternalServerError {
				x.log.ErrorContext(ctx.Context(), "internal error", "error", errors.Join(append([]error{errors.New(msg)}, errs...)...), "request_id", x.id)
				p.Detail, p.Errors = internalDetail(x.id), nil
			}
		}
		return p
	}
})

func newProblem(status int, msg string, errs ...error) huma.StatusError {
	details := make([]*huma.ErrorDetail, 0, len(errs))
	for _, e := range errs {
		var d *huma.ErrorDetail
		switch {
		case e == nil:
			continue
		case errors.As(e, &d):
			d = &huma.ErrorDetail{Location: d.Location, Message: clipText(d.Message, maxMessageLen), Value: clipValue(d.Value)}
		default:
			d = &huma.ErrorDetail{Message: clipText(e.Error(), maxMessageLen)}
		}
		details = append(details, d)
	}
	switch {
	case status == http.StatusUnsupportedMediaType:
		msg = "the request body must be JSON: send it with Content-Type: application/json"
	case len(details) > 0 && (msg == "validation failed" || strings.HasPrefix(msg, "request body is too large")):
		parts := make([]string, 0, len(details))
		for _, d := range details {
			if d.Location != "" {
				parts = append(parts, d.Location+": "+d.Message)
			} else {
				parts = append(parts, d.Message)
			}
		}
		msg += ": " + strings.Join(parts, "; ")
	}
	return &Problem{Status: status, Title: http.StatusText(status), Detail: clipText(msg, maxDetailLen), Errors: details}
}

// stampRequestID fills in the request id of problems built without the request
// (those a handler returns); it is a huma transformer, so it sees every body.
func stampRequestID(ctx huma.Context, _ string, v any) (any, error) {
	if p, ok := v.(*Problem); ok && p.RequestID == "" {
		p.RequestID = RequestID(ctx.Context())
	}
	return v, nil
}

// clipText keeps the first n characters of s and says how much it left out.
func clipText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + fmt.Sprintf("… (%d characters in all)", utf8.RuneCountInString(s))
}

// clipValue clips an echoed value: a string to maxEcho characters, anything bigger
// than a scalar to maxEcho characters of its JSON.
func clipValue(v any) any {
	switch t := v.(type) {
	case nil, bool, int, int64, float64, json.Number:
		return v
	case string:
		return clipText(t, maxEcho)
	case []string:
		if len(t) == 1 {
			return clipText(t[0], maxEcho)
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	if utf8.RuneCount(b) <= maxEcho {
		return v
	}
	return clipText(string(b), maxEcho)
}

// writeProblem writes a problem+json response outside huma (unrouted requests, a
// panic).
func writeProblem(w http.ResponseWriter, r *http.Request, status int, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(Problem{
		Title:     http.StatusText(status),
		Status:    status,
		Detail:    detail,
		RequestID: RequestID(r.Context()),
	})
}

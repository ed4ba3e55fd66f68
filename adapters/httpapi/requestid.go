package httpapi

import (
	"context"
	"crypto/rand"
	"log/slog"

	"github.com/danielgtaylor/huma/v2"
)

// RequestIDHeader carries a request's id in and out.
const RequestIDHeader = "X-Request-ID"

// maxRequestIDLen bounds an id a client sends; a longer one is replaced.
const maxRequestIDLen = 128

// acceptRequestID returns the client's id when it is sane (1 to 128 characters of
// letters, digits and "-_.:/+="), so that a client can follow its own ids through
// engram's logs; anything else (empty, too long, spaces, control characters, a
// log-forging newline) is replaced by a fresh id.
func acceptRequestID(sent string) string {
	if n := len(sent); n == 0 || n > maxRequestIDLen {
		return newRequestID()
	}
	for i := 0; i < len(sent); i++ {
		c := sent[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '-', c == '_', c == '.', c == ':', c == '/', c == '+', c == '=':
		default:
			return newRequestID()
		}
	}
	return sent
}

// newRequestID is 26 random base32 characters (130 bits).
func newRequestID() string { return rand.Text() }

// exchange is what the edge learns about one request while it is served: the
// layers below fill in the operation and the tenant, the access log line reads them.
// It lives in the request's context, so every layer can reach it.
type exchange struct {
	id     string
	op     *huma.Operation // the operation serving it: its path is the log's route (/v1/users/{user}/memories), its path parameters locate problems
	tenant string
	client string // the client's own version header, on a facade that names one (Facade.ClientHeader)
	log    *slog.Logger
}

type exchangeKey struct{}

func withExchange(ctx context.Context, x *exchange) context.Context {
	return context.WithValue(ctx, exchangeKey{}, x)
}

func exchangeFrom(ctx context.Context) *exchange {
	x, _ := ctx.Value(exchangeKey{}).(*exchange)
	return x
}

// RequestID is the id of the HTTP request ctx belongs to, or "" outside one.
func RequestID(ctx context.Context) string {
	if x := exchangeFrom(ctx); x != nil {
		return x.id
	}
	return ""
}

// WithRequestIDs wraps a log handler so that every record logged with a request's
// context (log.InfoContext(ctx, …)) carries its request_id, whichever layer logs it.
func WithRequestIDs(h slog.Handler) slog.Handler { return requestIDHandler{h} }

type requestIDHandler struct{ slog.Handler }

func (h requestIDHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestID(ctx); id != "" && !hasAttr(r, "request_id") {
		r = r.Clone()
		r.AddAttrs(slog.String("request_id", id))
	}
	return h.Handler.Handle(ctx, r)
}

func (h requestIDHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return requestIDHandler{h.Handler.WithAttrs(attrs)}
}

func (h requestIDHandler) WithGroup(name string) slog.Handler {
	return requestIDHandler{h.Handler.WithGroup(name)}
}

func hasAttr(r slog.Record, key string) bool {
	found := false
	r.Attrs(func(a slog.Attr) bool {
		found = a.Key == key
		return !found
	})
	return found
}

// inPath reports whether the operation serving the request has a path parameter
// of that name; it is asked only when a problem is written.
func (x *exchange) inPath(name string) bool {
	if x == nil || x.op == nil {
		return false
	}
	for _, p := range x.op.Parameters {
		if p.In == "path" && p.Name == name {
			return true
		}
	}
	return false
}

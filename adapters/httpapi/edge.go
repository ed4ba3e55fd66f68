package httpapi

import (
	"bufio"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
)

// edge is the router under huma. Every request passes through its ServeHTTP,
// whether an operation serves it or the mux alone does (/metrics, /docs, an unknown
// path): it gives the request its id, bounds how long its body may take to arrive
// and how long a write may wait on a client that does not read, answers a wrong
// method on a known path with 405, turns a panic into a 500 that names the
// request, and writes the access log.
type edge struct {
	*http.ServeMux
	log                       *slog.Logger
	bodyTimeout, writeTimeout time.Duration // 0: none
}

func newEdge(mux *http.ServeMux, opts Options) *edge {
	e := &edge{ServeMux: mux, log: opts.Logger, bodyTimeout: opts.BodyTimeout, writeTimeout: opts.WriteTimeout}
	// Anything the mux does not route is a problem+json 404 or 405, not a text page.
	mux.HandleFunc("/", e.unrouted)
	return e
}

func (e *edge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	x := &exchange{id: acceptRequestID(r.Header.Get(RequestIDHeader)), log: e.log}
	w.Header().Set(RequestIDHeader, x.id)
	rc := http.NewResponseController(w)
	rec := &statusRecorder{ResponseWriter: w}
	if e.writeTimeout > 0 {
		// A deadline left by the previous request on this connection does not
		// carry over; each write then gets one of its own.
		_ = rc.SetWriteDeadline(time.Time{})
		rec.rc, rec.writeTimeout = rc, e.writeTimeout
	}
	// A copy of the request from here on: the server reads the original's body
	// type after the handler (an unread Expect: 100-continue body must stay
	// recognisable, or the server would wait for it).
	r = r.WithContext(withExchange(r.Context(), x))
	e.limitBody(r, rc)
	treatFormAsJSON(r)
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			e.log.ErrorContext(r.Context(), "panic serving request", "panic", p, "request_id", x.id, "stack", string(debug.Stack()))
			if rec.status == 0 {
				writeProblem(rec, r, panicked.status(), internalDetail(x.id))
			}
		}
		e.accessLog(r, x, rec, time.Since(start))
	}()
	e.ServeMux.ServeHTTP(rec, r)
}

// limitBody gives the body bodyTimeout to arrive, from the end of the headers:
// a client that declares a length and stops sending gets a 408 (hygiene, or the
// MCP server, reads the body and sees the deadline pass) instead of holding the
// connection. Once the body has been read whole the deadline is lifted, so that it
// cannot cut a long handler short (the server watches the connection for a close
// while the handler runs, and a passed deadline would cancel the request).
func (e *edge) limitBody(r *http.Request, rc *http.ResponseController) {
	if e.bodyTimeout <= 0 || r.Body == nil || r.Body == http.NoBody {
		return
	}
	if rc.SetReadDeadline(time.Now().Add(e.bodyTimeout)) != nil {
		return // not a network connection (a test recorder): nothing to bound
	}
	r.Body = &deadlineBody{ReadCloser: r.Body, lift: func() { _ = rc.SetReadDeadline(time.Time{}) }}
}

// deadlineBody lifts the body's read deadline at its end.
type deadlineBody struct {
	io.ReadCloser
	lift   func()
	lifted bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.lifted {
		b.lifted = true
		b.lift()
	}
	return n, err
}

// probeRoutes are polled by orchestrators every few seconds: their lines are DEBUG,
// so that the INFO log shows the traffic of clients.
var probeRoutes = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true}

// accessLog writes one line per request: never a body, never the raw path (it holds
// user ids and keys), only the route pattern.
func (e *edge) accessLog(r *http.Request, x *exchange, rec *statusRecorder, elapsed time.Duration) {
	route := routeOf(r.Pattern)
	if x.op != nil {
		route = x.op.Path
	}
	level := slog.LevelInfo
	if probeRoutes[route] {
		level = slog.LevelDebug
	}
	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	attrs := []slog.Attr{slog.String("method", r.Method), slog.String("route", route), slog.Int("status", status),
		slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000), slog.String("tenant", x.tenant),
		slog.String("request_id", x.id), slog.Int64("bytes", rec.bytes)}
	if x.client != "" {
		attrs = append(attrs, slog.String("client", x.client))
	}
	e.log.LogAttrs(r.Context(), level, "http request", attrs...)
}

// routeOf turns a mux pattern ("GET /metrics") into a route; the catch-all "/" is
// no route at all.
func routeOf(pattern string) string {
	if _, path, ok := strings.Cut(pattern, " "); ok {
		pattern = path
	}
	if pattern == "" || pattern == "/" {
		return "unrouted"
	}
	return pattern
}

// unrouted answers what no route matched: 405 with Allow when the path is known
// under other methods (the mux's own 405 is hidden by the catch-all), else 404.
func (e *edge) unrouted(w http.ResponseWriter, r *http.Request) {
	if allow := e.allowedMethods(r); len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeProblem(w, r, wrongMethod.status(),
			r.Method+" is not allowed on "+clipText(r.URL.Path, maxEcho)+"; use "+strings.Join(allow, " or "))
		return
	}
	writeProblem(w, r, noRoute.status(), "no such endpoint: "+r.Method+" "+clipText(r.URL.Path, maxEcho)+"; see /docs")
}

var probeMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// allowedMethods asks the mux which methods would route r's path elsewhere than to
// the catch-all, so that routes added by any module are covered.
func (e *edge) allowedMethods(r *http.Request) []string {
	var allow []string
	for _, m := range probeMethods {
		if m == r.Method {
			continue
		}
		probe := &http.Request{Method: m, URL: r.URL, Host: r.Host, Header: http.Header{}}
		if _, pattern := e.ServeMux.Handler(probe); routeOf(pattern) != "unrouted" {
			allow = append(allow, m)
		}
	}
	return allow
}

// treatFormAsJSON treats a body sent as form data that is really JSON (what
// `curl -d` sends without -H) as JSON, so the first try from a terminal works.
func treatFormAsJSON(r *http.Request) {
	if r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" || r.Body == nil {
		return
	}
	body := bufio.NewReader(r.Body)
	if first, err := body.Peek(1); err == nil && (first[0] == '{' || first[0] == '[') {
		r.Header.Set("Content-Type", "application/json")
	}
	r.Body = readCloser{Reader: body, Closer: r.Body}
}

type readCloser struct {
	io.Reader
	io.Closer
}

// recordRoute is the first huma middleware: it tells the access log which
// operation served the request.
func recordRoute(ctx huma.Context, next func(huma.Context)) {
	if x := exchangeFrom(ctx.Context()); x != nil {
		x.op = ctx.Operation()
	}
	next(ctx)
}

// statusRecorder remembers the status and size of a response for the access log,
// and gives each write writeTimeout to reach a client that may have stopped
// reading (a deadline per write, not per response: a long stream that keeps
// moving is never cut).
type statusRecorder struct {
	http.ResponseWriter
	status       int
	bytes        int64
	rc           *http.ResponseController // nil: no write deadline
	writeTimeout time.Duration
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 && code >= 200 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	if s.rc != nil {
		_ = s.rc.SetWriteDeadline(time.Now().Add(s.writeTimeout))
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += int64(n)
	return n, err
}

// Flush keeps streaming responses streaming through the recorder.
func (s *statusRecorder) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		if s.status == 0 {
			s.status = http.StatusOK
		}
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

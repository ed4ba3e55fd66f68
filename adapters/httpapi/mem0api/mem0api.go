// Package mem0api serves the mem0 Platform API under /mem0, so that an agent
// written against mem0's MemoryClient (npm mem0ai 2.x and 3.x, PyPI mem0ai)
// keeps working when its host is pointed at engram. It speaks its clients'
// language at the edge — mem0's routes with their trailing slashes, field
// names, filters and {"detail"} error bodies — and everything behind it is
// engram's own use cases: memories, messages and their extraction, search,
// users and erasure. There is no second store.
package mem0api

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"engram/app/erasure"
	"engram/app/memories"
	"engram/app/messages"
	"engram/app/retrieval"
	"engram/app/users"
	"engram/domain/memory"
	"engram/ports"
)

// Prefix is where the API is served: a client's host is <engram>/mem0.
const Prefix = "/mem0"

// Memories are the memory use cases the routes call.
type Memories interface {
	Save(ctx context.Context, cmd memories.Save) (memories.SaveResult, error)
	Get(ctx context.Context, q memories.Get) (memory.Memory, error)
	List(ctx context.Context, q memories.List) (memories.ListResult, error)
	Delete(ctx context.Context, cmd memories.Delete) error
	History(ctx context.Context, q memories.History) ([]memory.Event, error)
	Patch(ctx context.Context, cmd memories.Patch) (memory.Memory, error)
}

// Finder reads a tenant's memories without naming their user: one by its id,
// or a page of them.
type Finder interface {
	ByID(ctx context.Context, q memories.ByID) (memory.Memory, error)
	Find(ctx context.Context, q memories.Find) (memories.FindResult, error)
}

// Searcher is engram's search.
type Searcher interface {
	Search(ctx context.Context, q retrieval.Search) (retrieval.Result, error)
}

// Messages is conversation ingestion: an inferring add posts its messages.
type Messages interface {
	PostBatch(ctx context.Context, cmd messages.PostBatch) ([]messages.Posted, error)
}

// Users lists the tenant's users.
type Users interface {
	ListUsers(ctx context.Context, q users.ListUsers) (users.UserPage, error)
}

// Eraser erases a user.
type Eraser interface {
	EraseUser(ctx context.Context, cmd erasure.EraseUser) (erasure.Erasure, error)
}

// Deps are the use cases behind the routes.
type Deps struct {
	Memories Memories
	Finder   Finder
	Search   Searcher
	Messages Messages
	Users    Users
	Eraser   Eraser
	Adds     Adds
	IDs      ports.IDs
	Clock    ports.Clock
}

// Options are what the handler needs of the server around it.
type Options struct {
	Tenant       func(context.Context) string       // the tenant the request authenticated as
	Reaches      func(context.Context, string) bool // whether the request's key reaches a user
	RequestID    func(context.Context) string       // the request's id, quoted in 5xx details
	MaxBodyBytes int64
	Logger       *slog.Logger
	// SyncWait bounds how long an add with async_mode false waits for its
	// extraction (default 10 s).
	SyncWait time.Duration
}

// Handler serves the routes.
type Handler struct {
	deps Deps
	opts Options
}

// New builds the handler.
func New(deps Deps, opts Options) *Handler {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.SyncWait == 0 {
		opts.SyncWait = 10 * time.Second
	}
	return &Handler{deps: deps, opts: opts}
}

// call is one request as a route sees it.
type call struct {
	w      http.ResponseWriter
	r      *http.Request
	tenant string
}

func (c call) ctx() context.Context { return c.r.Context() }

// scope is the engram user a mem0 user id names, once the key is known to reach it.
func (h *Handler) scope(c call, user string) (memory.Scope, error) {
	s, err := memory.ParseScope(c.tenant, user)
	if err != nil {
		return memory.Scope{}, err
	}
	if h.opts.Reaches != nil && !h.opts.Reaches(c.ctx(), user) {
		return memory.Scope{}, forbidden("this API key does not reach user " + strconv.Quote(user))
	}
	return s, nil
}

// serve adapts a route to http: every answer is JSON, every error {"detail"}.
func (h *Handler) serve(route func(call) (any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := call{w: w, r: r, tenant: h.opts.Tenant(r.Context())}
		body, err := route(c)
		if err != nil {
			writeFailure(w, h.failureOf(r.Context(), err))
			return
		}
		writeJSON(w, http.StatusOK, body)
	})
}

// decode reads the JSON body into v. Members v does not have are ignored, as
// mem0 does: its clients send org_id, project_id, output_format, version… on
// every call. An empty body is an empty object.
func (h *Handler) decode(c call, v any) error {
	body := http.MaxBytesReader(c.w, c.r.Body, h.opts.MaxBodyBytes)
	err := json.NewDecoder(body).Decode(v)
	var tooLarge *http.MaxBytesError
	switch {
	case err == nil, errors.Is(err, io.EOF):
		return nil
	case errors.As(err, &tooLarge):
		return &failure{status: http.StatusRequestEntityTooLarge,
			detail: "the body is larger than " + strconv.FormatInt(h.opts.MaxBodyBytes, 10) + " bytes; send fewer messages or memories per call"}
	}
	return badRequest("the body must be a JSON object: " + err.Error())
}

// newID is a fresh id of engram's kind (a ULID).
func (h *Handler) newID() string { return h.deps.IDs.New() }

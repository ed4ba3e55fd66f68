// Package openaiconv serves a subset of the OpenAI Conversations API under
// /openai/users/{user}/v1, so that an agent built on the OpenAI Agents SDK keeps
// its session in engram by pointing OpenAIConversationsSession's baseURL there.
// It speaks its client's language at the edge: OpenAI's JSON shapes, ids and
// error bodies ({"error":{"message","type","param","code"}}); everything behind
// it is app/agentconv.
package openaiconv

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	appconv "engram/app/agentconv"
	"engram/domain/agentconv"
	"engram/domain/memory"
)

// Prefix is where the API is served; {user} is the engram user whose
// conversations it holds.
const Prefix = "/openai/users/{user}/v1"

// Conversations are the use cases the routes call.
type Conversations interface {
	Create(ctx context.Context, cmd appconv.Create) (agentconv.Conversation, error)
	Get(ctx context.Context, scope memory.Scope, conversationID string) (agentconv.Conversation, error)
	Update(ctx context.Context, scope memory.Scope, conversationID string, metadata map[string]string) (agentconv.Conversation, error)
	Delete(ctx context.Context, scope memory.Scope, conversationID string) error
	AddItems(ctx context.Context, cmd appconv.AddItems) ([]agentconv.Item, error)
	ListItems(ctx context.Context, q appconv.ListItems) (appconv.ItemPage, error)
	GetItem(ctx context.Context, scope memory.Scope, conversationID, itemID string) (agentconv.Item, error)
	DeleteItem(ctx context.Context, scope memory.Scope, conversationID, itemID string) error
}

// Options are what the handler needs of the server around it.
type Options struct {
	Tenant       func(context.Context) string // the tenant the request authenticated as
	RequestID    func(context.Context) string // the request's id, quoted in 5xx messages
	MaxBodyBytes int64
	Logger       *slog.Logger
}

// Handler serves the routes.
type Handler struct {
	svc  Conversations
	opts Options
}

// New builds the handler.
func New(svc Conversations, opts Options) *Handler {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Handler{svc: svc, opts: opts}
}

// Routes are the handler's routes by mux pattern; the server authenticates each
// before it runs.
func (h *Handler) Routes() map[string]http.Handler {
	c := Prefix + "/conversations"
	return map[string]http.Handler{
		"POST " + c:                                    h.route(h.create),
		"GET " + c + "/{conversation}":                 h.route(h.get),
		"POST " + c + "/{conversation}":                h.route(h.update),
		"DELETE " + c + "/{conversation}":              h.route(h.delete),
		"POST " + c + "/{conversation}/items":          h.route(h.addItems),
		"GET " + c + "/{conversation}/items":           h.route(h.listItems),
		"GET " + c + "/{conversation}/items/{item}":    h.route(h.getItem),
		"DELETE " + c + "/{conversation}/items/{item}": h.route(h.deleteItem),
	}
}

// call is one request: its scope, checked, and what the route answers.
type call struct {
	w     http.ResponseWriter
	r     *http.Request
	scope memory.Scope
}

func (h *Handler) route(serve func(call) (int, any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user := r.PathValue("user")
		if err := memory.ValidateUserID("user", user); err != nil {
			writeFailure(w, badRequest("user", "the user in the path "+err.Error()))
			return
		}
		for _, name := range []string{"conversation", "item"} {
			if id := r.PathValue(name); id != "" {
				if err := agentconv.ValidateItemID(name, id); err != nil {
					writeFailure(w, badRequest(name, "the "+name+" id in the path "+err.Error()))
					return
				}
			}
		}
		status, body, err := serve(call{w: w, r: r, scope: memory.Scope{Tenant: h.opts.Tenant(r.Context()), User: user}})
		var f *failure
		switch {
		case errors.As(err, &f):
			writeFailure(w, *f)
		case err != nil:
			writeFailure(w, failureOf(r.Context(), h.opts.Logger, h.opts.RequestID(r.Context()), err))
		default:
			writeJSON(w, status, body)
		}
	})
}

func (f *failure) Error() string { return f.message }

// conversationJSON is a conversation as the API serves it.
type conversationJSON struct {
	ID        string            `json:"id"`
	Object    string            `json:"object"`
	CreatedAt int64             `json:"created_at"`
	Metadata  map[string]string `json:"metadata"`
}

func toConversationJSON(c agentconv.Conversation) conversationJSON {
	return conversationJSON{ID: c.ID, Object: "conversation", CreatedAt: c.CreatedAt.Unix(), Metadata: c.Metadata}
}

// listJSON is a page of items.
type listJSON struct {
	Object  string            `json:"object"`
	Data    []json.RawMessage `json:"data"`
	FirstID *string           `json:"first_id"`
	LastID  *string           `json:"last_id"`
	HasMore bool              `json:"has_more"`
}

func toListJSON(items []agentconv.Item, more bool) listJSON {
	out := listJSON{Object: "list", Data: make([]json.RawMessage, len(items)), HasMore: more}
	for i, it := range items {
		out.Data[i] = render(it)
	}
	if len(items) > 0 {
		out.FirstID, out.LastID = &items[0].ID, &items[len(items)-1].ID
	}
	return out
}

// decode reads the JSON body into v, refusing members the API does not have.
func (h *Handler) decode(c call, v any, allowEmpty bool) error {
	body := http.MaxBytesReader(c.w, c.r.Body, h.opts.MaxBodyBytes)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	var tooLarge *http.MaxBytesError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &tooLarge):
		return &failure{status: http.StatusRequestEntityTooLarge, kind: "invalid_request_error",
			message: "the body is larger than " + strconv.FormatInt(h.opts.MaxBodyBytes, 10) + " bytes; add the items in several calls"}
	case errors.Is(err, io.EOF) && allowEmpty:
		return nil
	}
	f := badRequest("", "the body must be a JSON object of the documented members: "+err.Error())
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		f.param = strings.Trim(name, `"`)
	}
	return &f
}

// refuseQuery refuses query parameters the route does not take.
func refuseQuery(c call, allowed ...string) error {
	for name := range c.r.URL.Query() {
		if !contains(allowed, name) {
			f := badRequest(name, "unknown query parameter "+strconv.Quote(name)+"; this route takes "+orNone(allowed))
			return &f
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

// itemsOf reads the items of a body.
func itemsOf(raw []json.RawMessage) ([]appconv.NewItem, error) {
	out := make([]appconv.NewItem, len(raw))
	for i, r := range raw {
		item, f := parseItem("items["+strconv.Itoa(i)+"]", r)
		if f != nil {
			return nil, f
		}
		out[i] = item
	}
	return out, nil
}

// include names what OpenAI may add to items it serves; engram serves items
// whole, so it is accepted and changes nothing.
var includeParams = []string{"include", "include[]"}

func (h *Handler) create(c call) (int, any, error) {
	if err := refuseQuery(c); err != nil {
		return 0, nil, err
	}
	var body struct {
		Items    []json.RawMessage `json:"items"`
		Metadata map[string]string `json:"metadata"`
	}
	if err := h.decode(c, &body, true); err != nil {
		return 0, nil, err
	}
	items, err := itemsOf(body.Items)
	if err != nil {
		return 0, nil, err
	}
	conv, err := h.svc.Create(c.r.Context(), appconv.Create{Scope: c.scope, Metadata: body.Metadata, Items: items})
	if err = h.storedAnyway(c, err); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, toConversationJSON(conv), nil
}

// storedAnyway logs the session error of a change that is stored, and lets the
// call succeed: the items are the record, and a retry would add them twice.
func (h *Handler) storedAnyway(c call, err error) error {
	var se *appconv.SessionError
	if errors.As(err, &se) {
		h.opts.Logger.WarnContext(c.r.Context(), "conversation stored, its session not updated", "error", err,
			"request_id", h.opts.RequestID(c.r.Context()))
		return nil
	}
	return err
}

func (h *Handler) get(c call) (int, any, error) {
	if err := refuseQuery(c); err != nil {
		return 0, nil, err
	}
	conv, err := h.svc.Get(c.r.Context(), c.scope, c.r.PathValue("conversation"))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, toConversationJSON(conv), nil
}

func (h *Handler) update(c call) (int, any, error) {
	if err := refuseQuery(c); err != nil {
		return 0, nil, err
	}
	var body struct {
		Metadata *map[string]string `json:"metadata"`
	}
	if err := h.decode(c, &body, false); err != nil {
		return 0, nil, err
	}
	if body.Metadata == nil {
		f := badRequest("metadata", "metadata is required: the labels that replace the conversation's (an empty object clears them)")
		return 0, nil, &f
	}
	conv, err := h.svc.Update(c.r.Context(), c.scope, c.r.PathValue("conversation"), *body.Metadata)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, toConversationJSON(conv), nil
}

func (h *Handler) delete(c call) (int, any, error) {
	if err := refuseQuery(c); err != nil {
		return 0, nil, err
	}
	id := c.r.PathValue("conversation")
	if err := h.svc.Delete(c.r.Context(), c.scope, id); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"id": id, "object": "conversation.deleted", "deleted": true}, nil
}

func (h *Handler) addItems(c call) (int, any, error) {
	if err := refuseQuery(c, includeParams...); err != nil {
		return 0, nil, err
	}
	var body struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := h.decode(c, &body, false); err != nil {
		return 0, nil, err
	}
	items, err := itemsOf(body.Items)
	if err != nil {
		return 0, nil, err
	}
	added, err := h.svc.AddItems(c.r.Context(), appconv.AddItems{Scope: c.scope, ConversationID: c.r.PathValue("conversation"), Items: items})
	if err = h.storedAnyway(c, err); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, toListJSON(added, false), nil
}

func (h *Handler) listItems(c call) (int, any, error) {
	if err := refuseQuery(c, append([]string{"limit", "order", "after"}, includeParams...)...); err != nil {
		return 0, nil, err
	}
	query := c.r.URL.Query()
	q := appconv.ListItems{Scope: c.scope, ConversationID: c.r.PathValue("conversation"), After: query.Get("after")}
	if s := query.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			f := badRequest("limit", "limit must be a whole number from 1 to "+strconv.Itoa(agentconv.MaxPage)+", got "+strconv.Quote(s))
			return 0, nil, &f
		}
		if n < 1 {
			f := badRequest("limit", "limit must be from 1 to "+strconv.Itoa(agentconv.MaxPage)+", got "+s)
			return 0, nil, &f
		}
		q.Limit = n
	}
	switch order := query.Get("order"); order {
	case "", "desc":
		q.Descending = true
	case "asc":
	default:
		f := badRequest("order", "order must be asc or desc, got "+strconv.Quote(order))
		return 0, nil, &f
	}
	page, err := h.svc.ListItems(c.r.Context(), q)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, toListJSON(page.Items, page.More), nil
}

func (h *Handler) getItem(c call) (int, any, error) {
	if err := refuseQuery(c, includeParams...); err != nil {
		return 0, nil, err
	}
	it, err := h.svc.GetItem(c.r.Context(), c.scope, c.r.PathValue("conversation"), c.r.PathValue("item"))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, render(it), nil
}

// deleteItem answers with the conversation, as OpenAI's API does.
func (h *Handler) deleteItem(c call) (int, any, error) {
	if err := refuseQuery(c); err != nil {
		return 0, nil, err
	}
	id := c.r.PathValue("conversation")
	if err := h.svc.DeleteItem(c.r.Context(), c.scope, id, c.r.PathValue("item")); err != nil {
		return 0, nil, err
	}
	conv, err := h.svc.Get(c.r.Context(), c.scope, id)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, toConversationJSON(conv), nil
}

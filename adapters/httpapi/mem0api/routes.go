package mem0api

import (
	"net/http"
	"strings"
)

// Route is one operation of the facade: its mux pattern, its name in the
// metrics and the OpenAPI document, and what it reads and answers.
type Route struct {
	ID, Method, Path, Summary, Description string
	Params                                 map[string]string
	Query                                  []string
	Body                                   any // a value of the body's type; nil: none
	Response                               any
	Handler                                http.Handler
}

var routeParams = map[string]string{
	"memory_id":   "The memory's id, as an add, a listing or a search gave it.",
	"event_id":    "The event id an add answered.",
	"entity_type": "user, agent, app or run.",
	"entity_id":   "The user (agent, app, run) id.",
	"page":        "The page, from 1.",
	"page_size":   "Memories per page (default 100, at most 1000).",
	"user_id":     "Whose memories: a user id.",
	"agent_id":    "Whose memories: an agent id.",
	"app_id":      "Whose memories: an app id.",
	"run_id":      "Whose memories: a run id.",
}

// Routes are the facade's operations; the server authenticates each before it
// runs. Every path ends with a slash, as mem0's clients call them.
func (h *Handler) Routes() []Route {
	entity := []string{"user_id", "agent_id", "app_id", "run_id"}
	paged := []string{"page", "page_size"}
	routes := []Route{
		{ID: "mem0_ping", Method: http.MethodGet, Path: "/v1/ping/", Summary: "Check the key",
			Description: "Answers the tenant as org_id and \"default\" as project_id, as mem0's clients expect of a valid key.",
			Response:    mem0PingJSON{}, Handler: h.serve(h.ping)},
		{ID: "mem0_add", Method: http.MethodPost, Path: "/v3/memories/add/", Summary: "Add memories",
			Description: "infer false stores each message as a memory at once (SUCCEEDED with the results); otherwise the messages are posted " +
				"as one batch of the run's conversation and extracted without the debounce (PENDING with an event_id; async_mode false waits up to 10 s).",
			Body: mem0AddBody{}, Response: mem0AddJSON{}, Handler: h.serve(h.add)},
		{ID: "mem0_list", Method: http.MethodPost, Path: "/v3/memories/", Summary: "List memories",
			Description: "The live memories the filters keep, newest first, a page at a time.", Query: paged,
			Body: mem0ListBody{}, Response: mem0PageJSON{}, Handler: h.serve(h.list)},
		{ID: "mem0_search", Method: http.MethodPost, Path: "/v3/memories/search/", Summary: "Search memories",
			Description: "engram's search over the memories the filters keep: top_k results at most, each scoring at least threshold (default 0.1), best first.",
			Body:        mem0SearchBody{}, Response: mem0SearchJSON{}, Handler: h.serve(h.search)},
		{ID: "mem0_get", Method: http.MethodGet, Path: "/v1/memories/{memory_id}/", Summary: "Get a memory",
			Description: "One live memory; 404 when it is unknown or deleted.", Response: mem0MemoryJSON{}, Handler: h.serve(h.getMemory)},
		{ID: "mem0_update", Method: http.MethodPut, Path: "/v1/memories/{memory_id}/", Summary: "Update a memory",
			Description: "Replaces the text (an UPDATE in its history) and the expiry.", Body: mem0UpdateBody{}, Response: mem0MemoryJSON{},
			Handler: h.serve(h.updateMemory)},
		{ID: "mem0_delete", Method: http.MethodDelete, Path: "/v1/memories/{memory_id}/", Summary: "Delete a memory",
			Description: "Deletes it: gone from get, listings and search; kept in its history.", Response: mem0MessageJSON{},
			Handler: h.serve(h.deleteMemory)},
		{ID: "mem0_history", Method: http.MethodGet, Path: "/v1/memories/{memory_id}/history/", Summary: "A memory's history",
			Description: "Every change, oldest first: ADD, UPDATE (also engram's append, revert and merge), DELETE (also purge and expiry).",
			Response:    []mem0HistoryJSON{}, Handler: h.serve(h.memoryHistory)},
		{ID: "mem0_delete_all", Method: http.MethodDelete, Path: "/v1/memories/", Summary: "Delete an entity's memories",
			Description: "Deletes every live memory of the user (agent, app, run) named in the query.", Query: entity,
			Response: mem0MessageJSON{}, Handler: h.serve(h.deleteAll)},
		{ID: "mem0_entities", Method: http.MethodGet, Path: "/v1/entities/", Summary: "List users",
			Description: "The tenant's users with memories, with how many each has.", Query: paged,
			Response: mem0EntitiesJSON{}, Handler: h.serve(h.entities)},
		{ID: "mem0_entity_delete", Method: http.MethodDelete, Path: "/v2/entities/{entity_type}/{entity_id}/", Summary: "Delete an entity",
			Description: "A user is erased by engram's erasure (every trace, by a job whose id is answered); an agent, app or run has its memories deleted.",
			Response:    mem0EntityDeletedJSON{}, Handler: h.serve(h.deleteEntity)},
		{ID: "mem0_entity_delete_v1", Method: http.MethodDelete, Path: "/v1/entities/{entity_type}/{entity_id}/", Summary: "Delete an entity (older clients)",
			Description: "As DELETE /v2/entities/{entity_type}/{entity_id}/.", Response: mem0EntityDeletedJSON{}, Handler: h.serve(h.deleteEntity)},
		{ID: "mem0_batch_update", Method: http.MethodPut, Path: "/v1/batch/", Summary: "Update memories",
			Description: "Replaces the text of up to 1000 memories; none is changed when one is unknown.", Body: mem0BatchBody{},
			Response: mem0MessageJSON{}, Handler: h.serve(h.batchUpdate)},
		{ID: "mem0_batch_delete", Method: http.MethodDelete, Path: "/v1/batch/", Summary: "Delete memories",
			Description: "Deletes up to 1000 memories named in the body; none is deleted when one is unknown.", Body: mem0BatchBody{},
			Response: mem0MessageJSON{}, Handler: h.serve(h.batchDelete)},
		{ID: "mem0_add_v1", Method: http.MethodPost, Path: "/v1/memories/", Summary: "Add memories (older clients)",
			Description: "As the v3 add; answers a list of results (or of the PENDING event), or {results} with output_format v1.1.",
			Body:        mem0AddBody{}, Response: []mem0ResultJSON{}, Handler: h.serve(h.addV1)},
		{ID: "mem0_list_v1", Method: http.MethodGet, Path: "/v1/memories/", Summary: "List memories (older clients)",
			Description: "The memories of the entity named in the query: a list, or a page when page and page_size are given.",
			Query:       append(entity, paged...), Response: []mem0MemoryJSON{}, Handler: h.serve(h.listV1)},
		{ID: "mem0_list_v2", Method: http.MethodPost, Path: "/v2/memories/", Summary: "List memories (older clients)",
			Description: "As the v3 listing; a list, or a page when page and page_size are given.", Query: paged,
			Body: mem0ListBody{}, Response: []mem0MemoryJSON{}, Handler: h.serve(h.listV2)},
		{ID: "mem0_search_v1", Method: http.MethodPost, Path: "/v1/memories/search/", Summary: "Search memories (older clients)",
			Description: "As the v3 search; a list, or {results} with output_format v1.1.", Body: mem0SearchBody{},
			Response: []mem0MemoryJSON{}, Handler: h.serve(h.searchLegacy)},
		{ID: "mem0_search_v2", Method: http.MethodPost, Path: "/v2/memories/search/", Summary: "Search memories (older clients)",
			Description: "As the v3 search; a list, or {results} with output_format v1.1.", Body: mem0SearchBody{},
			Response: []mem0MemoryJSON{}, Handler: h.serve(h.searchLegacy)},
		{ID: "mem0_event", Method: http.MethodGet, Path: "/v1/event/{event_id}/", Summary: "An add's event",
			Description: "PENDING while the add's messages wait for extraction, then SUCCEEDED (or FAILED) with the memory changes it made.",
			Response:    mem0EventJSON{}, Handler: h.serve(h.getEvent)},
		{ID: "mem0_events", Method: http.MethodGet, Path: "/v1/events/", Summary: "Adds' events",
			Description: "The adds of the user_id named (of every user the key reaches without one), newest first, a page at a time, each as GET /v1/event/{event_id}/ answers it.",
			Query:       append([]string{"user_id"}, paged...), Response: mem0EventPageJSON{}, Handler: h.serve(h.listEvents)},
	}
	for i := range routes {
		routes[i].Path = Prefix + routes[i].Path
		routes[i].Params = routeParams
	}
	return routes
}

// Unsupported answers everything else under the prefix: mem0 features engram
// does not have (webhooks, projects, feedback, exports, summaries, profiles).
func (h *Handler) Unsupported() http.Handler {
	return h.serve(func(c call) (any, error) {
		path := strings.TrimPrefix(c.r.URL.Path, Prefix)
		return nil, unsupported(c.r.Method + " " + clip(path) + " is not supported by engram's mem0-compatible API " +
			"(it serves memories: add, list, search, get, update, delete, history, entities, batch, events); see the README, \"Coming from mem0\"")
	})
}

// mem0PingJSON is the ping's answer: both ids, which the Python client requires.
type mem0PingJSON struct {
	Status    string  `json:"status" doc:"ok."`
	OrgID     string  `json:"org_id" doc:"The tenant the key names."`
	ProjectID string  `json:"project_id" doc:"Always default."`
	UserEmail *string `json:"user_email" doc:"Always null."`
}

func (h *Handler) ping(c call) (any, error) {
	return mem0PingJSON{Status: "ok", OrgID: c.tenant, ProjectID: "default"}, nil
}

package mem0api

import (
	"cmp"
	"encoding/json"
	"net/url"
	"slices"
	"strconv"

	"engram/app/memories"
	"engram/app/users"
	"engram/domain/memfilter"
	"engram/domain/memory"
)

// Paging of listings.
const (
	DefaultPageSize = 100
	MaxPageSize     = 1000
	// maxScanned bounds the memories one listing reads, over all its users.
	maxScanned = 50000
)

// filter is the filter a body gives: its filters object and, as the older
// routes send them, the entity ids at its top level, all joined by AND.
func (e mem0EntityJSON) filter(filters json.RawMessage) (memfilter.Filter, error) {
	f, err := parseFilters(filters)
	if err != nil {
		return memfilter.Filter{}, err
	}
	parts := []memfilter.Filter{f}
	for field, id := range map[memfilter.Field]string{memfilter.UserID: e.UserID, memfilter.AgentID: e.AgentID,
		memfilter.AppID: e.AppID, memfilter.RunID: e.RunID} {
		if id != "" {
			parts = append(parts, memfilter.Where(memfilter.Condition{Field: field, Op: memfilter.Eq, Values: []any{id}}))
		}
	}
	return memfilter.And(parts...), nil
}

// matching is every live memory the filter keeps, newest first.
func (h *Handler) matching(c call, f memfilter.Filter) ([]memory.Memory, error) {
	userIDs, err := h.usersOf(c, f)
	if err != nil {
		return nil, err
	}
	var out []memory.Memory
	scanned := 0
	for _, user := range userIDs {
		scope, err := h.scope(c, user)
		if err != nil {
			return nil, err
		}
		q := memories.List{Scope: scope, Limit: memories.MaxListLimit}
		for scanned < maxScanned {
			page, err := h.deps.Memories.List(c.ctx(), q)
			if err != nil {
				return nil, err
			}
			scanned += len(page.Items)
			for _, m := range page.Items {
				if f.Match(subject{m}) {
					out = append(out, m)
				}
			}
			if q.Cursor = page.NextCursor; q.Cursor == "" {
				break
			}
		}
	}
	slices.SortStableFunc(out, func(a, b memory.Memory) int { return b.CreatedAt().Compare(a.CreatedAt()) })
	return out, nil
}

// usersOf is the users whose memories the filter may keep: those it names, or
// every user of the tenant the key reaches.
func (h *Handler) usersOf(c call, f memfilter.Filter) ([]string, error) {
	if named, bounded := f.Users(); bounded {
		return named, nil
	}
	var out []string
	q := users.ListUsers{Tenant: c.tenant, Limit: users.MaxLimit}
	for {
		page, err := h.deps.Users.ListUsers(c.ctx(), q)
		if err != nil {
			return nil, err
		}
		for _, u := range page.Items {
			if u.Counts[users.KindMemories] > 0 && (h.opts.Reaches == nil || h.opts.Reaches(c.ctx(), u.User)) {
				out = append(out, u.User)
			}
		}
		if q.Cursor = page.NextCursor; q.Cursor == "" {
			return out, nil
		}
	}
}

// mem0PageJSON is a page of a listing.
type mem0PageJSON struct {
	Count    int              `json:"count" doc:"How many memories match, over all pages."`
	Next     *string          `json:"next" doc:"The next page's URL; null on the last."`
	Previous *string          `json:"previous" doc:"The previous page's URL; null on the first."`
	Results  []mem0MemoryJSON `json:"results" doc:"This page's memories, newest first."`
}

// paging reads ?page=&page_size= (1-based; default 1 and 100).
func paging(q url.Values) (page, size int, err error) {
	page, size = 1, DefaultPageSize
	if s := q.Get("page"); s != "" {
		if page, err = strconv.Atoi(s); err != nil || page < 1 {
			return 0, 0, badRequest("page must be a whole number from 1, got " + strconv.Quote(clip(s)))
		}
	}
	if s := q.Get("page_size"); s != "" {
		if size, err = strconv.Atoi(s); err != nil || size < 1 || size > MaxPageSize {
			return 0, 0, badRequest("page_size must be a whole number from 1 to " + itoa(MaxPageSize) + ", got " + strconv.Quote(clip(s)))
		}
	}
	return page, size, nil
}

func (h *Handler) pageOf(c call, all []memory.Memory) (mem0PageJSON, error) {
	page, size, err := paging(c.r.URL.Query())
	if err != nil {
		return mem0PageJSON{}, err
	}
	out := mem0PageJSON{Count: len(all), Results: []mem0MemoryJSON{}}
	from := min((page-1)*size, len(all))
	to := min(from+size, len(all))
	for _, m := range all[from:to] {
		out.Results = append(out.Results, toMemoryJSON(m))
	}
	if to < len(all) {
		out.Next = pageLink(c, page+1, size)
	}
	if page > 1 {
		out.Previous = pageLink(c, page-1, size)
	}
	return out, nil
}

// pageLink is the URL of another page of the same listing.
func pageLink(c call, page, size int) *string {
	q := c.r.URL.Query()
	q.Set("page", itoa(page))
	q.Set("page_size", itoa(size))
	s := c.r.URL.Path + "?" + q.Encode()
	return &s
}

// mem0ListBody is a listing's body.
type mem0ListBody struct {
	Filters json.RawMessage `json:"filters,omitempty" doc:"Which memories: user_id, agent_id, app_id, run_id, dates, categories, metadata, keywords, memory_ids, joined with AND, OR and NOT."`
	mem0EntityJSON
}

func (h *Handler) listed(c call) ([]memory.Memory, error) {
	var body mem0ListBody
	if err := h.decode(c, &body); err != nil {
		return nil, err
	}
	f, err := body.filter(body.Filters)
	if err != nil {
		return nil, err
	}
	return h.matching(c, f)
}

// list is POST /v3/memories/ (and the legacy POST /v2/memories/ with page and
// page_size): a page.
func (h *Handler) list(c call) (any, error) {
	all, err := h.listed(c)
	if err != nil {
		return nil, err
	}
	return h.pageOf(c, all)
}

// listV2 is the legacy POST /v2/memories/: a page when asked for one, else a list.
func (h *Handler) listV2(c call) (any, error) {
	all, err := h.listed(c)
	if err != nil {
		return nil, err
	}
	return h.listOrPage(c, all)
}

func (h *Handler) listOrPage(c call, all []memory.Memory) (any, error) {
	q := c.r.URL.Query()
	if q.Get("page") != "" && q.Get("page_size") != "" {
		return h.pageOf(c, all)
	}
	out := make([]mem0MemoryJSON, len(all))
	for i, m := range all {
		out[i] = toMemoryJSON(m)
	}
	return out, nil
}

// queryEntities are the entity ids of a query string (the legacy GET and
// DELETE of /v1/memories/).
func queryEntities(q url.Values) mem0EntityJSON {
	return mem0EntityJSON{UserID: q.Get("user_id"), AgentID: q.Get("agent_id"), AppID: q.Get("app_id"), RunID: q.Get("run_id")}
}

// listV1 is the legacy GET /v1/memories/?user_id=…
func (h *Handler) listV1(c call) (any, error) {
	e := queryEntities(c.r.URL.Query())
	if e == (mem0EntityJSON{}) {
		return nil, badRequest("name whose memories to list: user_id, agent_id, app_id or run_id")
	}
	f, err := e.filter(nil)
	if err != nil {
		return nil, err
	}
	all, err := h.matching(c, f)
	if err != nil {
		return nil, err
	}
	return h.listOrPage(c, all)
}

// deleteAll is DELETE /v1/memories/?user_id=…: every memory of the entity is
// deleted (kept in its history, as any delete).
func (h *Handler) deleteAll(c call) (any, error) {
	e := queryEntities(c.r.URL.Query())
	if e == (mem0EntityJSON{}) {
		return nil, badRequest("name whose memories to delete: user_id, agent_id, app_id or run_id")
	}
	f, err := e.filter(nil)
	if err != nil {
		return nil, err
	}
	n, err := h.deleteMatching(c, f)
	if err != nil {
		return nil, err
	}
	return mem0MessageJSON{Message: "Memories deleted successfully! (" + itoa(n) + ")"}, nil
}

func (h *Handler) deleteMatching(c call, f memfilter.Filter) (int, error) {
	all, err := h.matching(c, f)
	if err != nil {
		return 0, err
	}
	for _, m := range all {
		if err := h.deps.Memories.Delete(c.ctx(), memories.Delete{Scope: m.Scope(), Key: m.Key().String()}); err != nil {
			return 0, err
		}
	}
	return len(all), nil
}

// byScore orders search results best first.
func byScore(a, b scored) int { return cmp.Compare(b.score, a.score) }

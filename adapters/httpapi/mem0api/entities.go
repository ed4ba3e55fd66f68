package mem0api

import (
	"strconv"

	"engram/app/erasure"
	"engram/app/memories"
	"engram/app/users"
	"engram/domain/memfilter"
)

// mem0EntityJSON is one user, agent, app or run with memories.
type mem0EntityRowJSON struct {
	ID            string         `json:"id" doc:"The entity's id (its name)."`
	Name          string         `json:"name" doc:"The user (or agent, app, run) id."`
	Type          string         `json:"type" doc:"user, agent, app or run."`
	TotalMemories int64          `json:"total_memories" doc:"How many memories it has."`
	Owner         string         `json:"owner" doc:"The tenant."`
	Metadata      map[string]any `json:"metadata" doc:"Always null."`
	CreatedAt     *string        `json:"created_at" doc:"Unknown: null."`
	UpdatedAt     *string        `json:"updated_at" doc:"When its data last changed."`
}

// mem0EntitiesJSON is the listing of entities.
type mem0EntitiesJSON struct {
	Count    int                 `json:"count" doc:"How many entities."`
	Next     *string             `json:"next" doc:"Always null: one page."`
	Previous *string             `json:"previous" doc:"Always null: one page."`
	Results  []mem0EntityRowJSON `json:"results" doc:"The entities."`
}

// entities is GET /v1/entities/: the tenant's users that have memories, then
// the agents, apps and runs their memories name.
func (h *Handler) entities(c call) (any, error) {
	out := mem0EntitiesJSON{Results: []mem0EntityRowJSON{}}
	q := users.ListUsers{Tenant: c.tenant, Limit: users.MaxLimit}
	for {
		page, err := h.deps.Users.ListUsers(c.ctx(), q)
		if err != nil {
			return nil, err
		}
		for _, u := range page.Items {
			n := u.Counts[users.KindMemories]
			if n == 0 || (h.opts.Reaches != nil && !h.opts.Reaches(c.ctx(), u.User)) {
				continue
			}
			row := mem0EntityRowJSON{ID: u.User, Name: u.User, Type: "user", TotalMemories: n, Owner: c.tenant}
			if !u.LastActiveAt.IsZero() {
				row.UpdatedAt = strPtr(stamp(u.LastActiveAt))
			}
			out.Results = append(out.Results, row)
		}
		if q.Cursor = page.NextCursor; q.Cursor == "" {
			break
		}
	}
	others, err := h.attributeEntities(c)
	if err != nil {
		return nil, err
	}
	out.Results = append(out.Results, others...)
	out.Count = len(out.Results)
	return out, nil
}

// attributeEntities are the agents, apps and runs the tenant's live memories
// name, each with how many memories name it (reading at most maxScanned).
func (h *Handler) attributeEntities(c call) ([]mem0EntityRowJSON, error) {
	counts := map[[2]string]int64{}
	var order [][2]string
	q := memories.Find{Tenant: c.tenant, Page: 1, PageSize: memories.MaxFindPageSize}
	for read := 0; read < maxScanned; q.Page++ {
		page, err := h.deps.Finder.Find(c.ctx(), q)
		if err != nil {
			return nil, err
		}
		for _, m := range page.Items {
			if h.opts.Reaches != nil && !h.opts.Reaches(c.ctx(), m.Scope().User) {
				continue
			}
			a := m.Attributes()
			for _, e := range [][2]string{{"agent", a.AgentID}, {"app", a.AppID}, {"run", a.RunID}} {
				if e[1] == "" {
					continue
				}
				if counts[e] == 0 {
					order = append(order, e)
				}
				counts[e]++
			}
		}
		if read += len(page.Items); len(page.Items) < q.PageSize {
			break
		}
	}
	rows := make([]mem0EntityRowJSON, len(order))
	for i, e := range order {
		rows[i] = mem0EntityRowJSON{ID: e[1], Name: e[1], Type: e[0], TotalMemories: counts[e], Owner: c.tenant}
	}
	return rows, nil
}

// mem0EntityDeletedJSON is the answer of an entity's deletion.
type mem0EntityDeletedJSON struct {
	Message string `json:"message" doc:"What was done."`
	JobID   string `json:"job_id,omitempty" doc:"A user: the erasure job (GET /v1/jobs/{job_id} on engram's API reports it)."`
}

var entityFields = map[string]memfilter.Field{"user": memfilter.UserID, "agent": memfilter.AgentID,
	"app": memfilter.AppID, "run": memfilter.RunID}

// deleteEntity is DELETE /v2/entities/{entity_type}/{entity_id}/ (and the older
// /v1/entities/…): a user is erased (every trace of them, by engram's erasure
// job); an agent, app or run has its memories deleted.
func (h *Handler) deleteEntity(c call) (any, error) {
	kind, name := c.r.PathValue("entity_type"), c.r.PathValue("entity_id")
	field, ok := entityFields[kind]
	if !ok {
		return nil, badRequest("the entity type must be user, agent, app or run, got " + strconv.Quote(clip(kind)))
	}
	if field != memfilter.UserID {
		n, err := h.deleteMatching(c, memfilter.Where(memfilter.Condition{Field: field, Op: memfilter.Eq, Values: []any{name}}))
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, notFound("Entity not found: no memories of " + kind + " " + strconv.Quote(clip(name)))
		}
		return mem0EntityDeletedJSON{Message: "Entity deleted successfully."}, nil
	}
	scope, err := h.scope(c, name)
	if err != nil {
		return nil, err
	}
	job, err := h.deps.Eraser.EraseUser(c.ctx(), erasure.EraseUser{Scope: scope})
	if err != nil {
		return nil, err
	}
	return mem0EntityDeletedJSON{Message: "Entity deleted successfully.", JobID: job.Job.ID}, nil
}

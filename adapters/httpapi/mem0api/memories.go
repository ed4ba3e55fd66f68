package mem0api

import (
	"context"
	"encoding/json"
	"strconv"

	"engram/app/memories"
	"engram/domain/memory"
	"engram/ports"
)

// memoryRef is a memory a mem0 id names, once the key is known to reach its user.
type memoryRef struct {
	id    string
	scope memory.Scope
	key   string
}

func (h *Handler) ref(c call, id string) (memoryRef, error) {
	return h.refOf(c, id, false)
}

// refOf finds the memory by id (also a deleted one, with inactive); another
// user's memory than the key reaches is not found, as in engram's own API.
func (h *Handler) refOf(c call, id string, inactive bool) (memoryRef, error) {
	r := memoryRef{id: id}
	m, err := h.deps.Finder.ByID(c.ctx(), memories.ByID{Tenant: c.tenant, ID: id, IncludeInactive: inactive})
	if err != nil {
		return r, r.missing(err)
	}
	if h.opts.Reaches != nil && !h.opts.Reaches(c.ctx(), m.Scope().User) {
		return r, r.missing(ports.ErrNotFound)
	}
	r.scope, r.key = m.Scope(), m.Key().String()
	return r, nil
}

func (r memoryRef) missing(err error) error {
	return notFoundAs(err, "Memory not found: no memory "+strconv.Quote(clip(r.id)))
}

func (h *Handler) load(ctx context.Context, r memoryRef) (memory.Memory, error) {
	m, err := h.deps.Memories.Get(ctx, memories.Get{Scope: r.scope, Key: r.key})
	return m, r.missing(err)
}

// getMemory is GET /v1/memories/{memory_id}/.
func (h *Handler) getMemory(c call) (any, error) {
	r, err := h.ref(c, c.r.PathValue("memory_id"))
	if err != nil {
		return nil, err
	}
	m, err := h.load(c.ctx(), r)
	if err != nil {
		return nil, err
	}
	return toMemoryJSON(m), nil
}

// mem0UpdateBody is an update: new text, metadata or expiry.
type mem0UpdateBody struct {
	Text           *string         `json:"text,omitempty" doc:"The memory's new text."`
	Metadata       json.RawMessage `json:"metadata,omitempty" doc:"The memory's new metadata, a JSON object (an empty object clears it)."`
	ExpirationDate *string         `json:"expiration_date,omitempty" doc:"YYYY-MM-DD: when it expires; null: never."`
}

// updateMemory is PUT /v1/memories/{memory_id}/.
func (h *Handler) updateMemory(c call) (any, error) {
	r, err := h.ref(c, c.r.PathValue("memory_id"))
	if err != nil {
		return nil, err
	}
	var body mem0UpdateBody
	if err := h.decode(c, &body); err != nil {
		return nil, err
	}
	m, err := h.update(c.ctx(), r, body)
	if err != nil {
		return nil, err
	}
	return toMemoryJSON(m), nil
}

// update replaces the text (keeping type, importance and pin), the metadata
// and the expiry.
func (h *Handler) update(ctx context.Context, r memoryRef, body mem0UpdateBody) (memory.Memory, error) {
	current, err := h.load(ctx, r)
	if err != nil {
		return memory.Memory{}, err
	}
	settings, err := h.settingsOf(body)
	if err != nil {
		return memory.Memory{}, err
	}
	if body.Text != nil {
		importance, confidence, pinned := current.Importance(), current.Confidence(), current.Pinned()
		saved, err := h.deps.Memories.Save(ctx, memories.Save{Scope: r.scope, Key: r.key, Draft: memory.DraftInput{
			Type: string(current.Type()), Content: *body.Text, Importance: &importance, Confidence: &confidence,
			Pinned: &pinned, TTLDays: settings.TTLDays}})
		if err != nil {
			return memory.Memory{}, err
		}
		current, settings.TTLDays = saved.Memory, nil
	}
	if settings == (memory.Settings{}) {
		return current, nil
	}
	m, err := h.deps.Memories.Patch(ctx, memories.Patch{Scope: r.scope, Key: r.key, Settings: settings})
	return m, r.missing(err)
}

// settingsOf are the expiry and metadata an update names.
func (h *Handler) settingsOf(body mem0UpdateBody) (memory.Settings, error) {
	var st memory.Settings
	if body.ExpirationDate != nil {
		ttl, err := ttlUntil(*body.ExpirationDate, h.deps.Clock.Now())
		if err != nil {
			return st, err
		}
		if ttl == nil {
			never := 0
			ttl = &never
		}
		st.TTLDays = ttl
	}
	if len(body.Metadata) > 0 {
		md, err := memory.ParseMetadata("metadata", body.Metadata)
		if err != nil {
			return st, err
		}
		if md.IsZero() {
			md = memory.RestoreMetadata("{}") // null clears it, as an empty object does
		}
		st.Metadata = &md
	}
	return st, nil
}

// deleteMemory is DELETE /v1/memories/{memory_id}/.
func (h *Handler) deleteMemory(c call) (any, error) {
	r, err := h.ref(c, c.r.PathValue("memory_id"))
	if err != nil {
		return nil, err
	}
	if err := h.deps.Memories.Delete(c.ctx(), memories.Delete{Scope: r.scope, Key: r.key}); err != nil {
		return nil, r.missing(err)
	}
	return mem0MessageJSON{Message: "Memory deleted successfully!"}, nil
}

// mem0MessageJSON is the answer of a change with nothing else to say.
type mem0MessageJSON struct {
	Message string `json:"message" doc:"What was done."`
}

// memoryHistory is GET /v1/memories/{memory_id}/history/.
func (h *Handler) memoryHistory(c call) (any, error) {
	r, err := h.refOf(c, c.r.PathValue("memory_id"), true)
	if err != nil {
		return nil, err
	}
	events, err := h.deps.Memories.History(c.ctx(), memories.History{Scope: r.scope, Key: r.key})
	if err != nil {
		return nil, r.missing(err)
	}
	out := make([]mem0HistoryJSON, len(events))
	for i, e := range events {
		out[i] = toHistoryJSON(r.id, e)
	}
	return out, nil
}

// MaxBatch is the most memories one batch call may change.
const MaxBatch = 1000

// mem0BatchBody is a batch update or delete.
type mem0BatchBody struct {
	Memories []mem0BatchItem `json:"memories" doc:"The memories to change (at most 1000)."`
}

type mem0BatchItem struct {
	MemoryID string  `json:"memory_id" doc:"The memory's id."`
	Text     *string `json:"text,omitempty" doc:"Update: the new text."`
}

func (h *Handler) batchItems(c call) ([]mem0BatchItem, []memoryRef, error) {
	var body mem0BatchBody
	if err := h.decode(c, &body); err != nil {
		return nil, nil, err
	}
	if n := len(body.Memories); n == 0 || n > MaxBatch {
		return nil, nil, badRequest("memories must hold 1 to " + itoa(MaxBatch) + " items, got " + itoa(n))
	}
	refs := make([]memoryRef, len(body.Memories))
	for i, it := range body.Memories {
		r, err := h.ref(c, it.MemoryID)
		if err != nil {
			return nil, nil, err
		}
		refs[i] = r
	}
	return body.Memories, refs, nil
}

// batchUpdate is PUT /v1/batch/: every memory is checked to exist before any
// is changed.
func (h *Handler) batchUpdate(c call) (any, error) {
	items, refs, err := h.batchItems(c)
	if err != nil {
		return nil, err
	}
	for i, r := range refs {
		if items[i].Text == nil {
			return nil, badRequest("memories[" + itoa(i) + "].text is required: the memory's new text")
		}
		if _, err := h.load(c.ctx(), r); err != nil {
			return nil, err
		}
	}
	for i, r := range refs {
		if _, err := h.update(c.ctx(), r, mem0UpdateBody{Text: items[i].Text}); err != nil {
			return nil, err
		}
	}
	return mem0MessageJSON{Message: "Successfully updated " + itoa(len(refs)) + " memories"}, nil
}

// batchDelete is DELETE /v1/batch/ (its body names the memories).
func (h *Handler) batchDelete(c call) (any, error) {
	_, refs, err := h.batchItems(c)
	if err != nil {
		return nil, err
	}
	for _, r := range refs {
		if _, err := h.load(c.ctx(), r); err != nil {
			return nil, err
		}
	}
	for _, r := range refs {
		if err := h.deps.Memories.Delete(c.ctx(), memories.Delete{Scope: r.scope, Key: r.key}); err != nil {
			return nil, r.missing(err)
		}
	}
	return mem0MessageJSON{Message: "Successfully deleted " + itoa(len(refs)) + " memories"}, nil
}

package httpapi

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"engram/app/erasure"
	"engram/app/memories"
	"engram/domain/memory"
)

// UserPath is the {user} parameter every per-user operation has.
type UserPath struct {
	User string `path:"user" minLength:"1" maxLength:"128" doc:"The tenant's own id for the user."`
}

// scope is the user of the path in the request's tenant; a bad user id is the
// problem that locates it in the path.
func (p UserPath) scope(ctx context.Context, log *slog.Logger) (memory.Scope, error) {
	s, err := memory.ParseScope(tenantFrom(ctx), p.User)
	return s, problem(ctx, log, err, "path")
}

type KeyPath struct {
	UserPath
	Key string `path:"key" minLength:"1" maxLength:"512" doc:"Memory key, normalised losslessly before use: Unicode NFKC, lower case, every run of spaces, '/' and '-' becomes one '-' (dropped at either end); letters, marks and digits of any script, '_' and '.' are kept. Any other character, a key without a letter or digit, or one longer than 160 characters once normalised is refused with 422 (never dropped or truncated), so two different keys never become one memory."`
}

type deleteInput struct {
	KeyPath
	Purge bool `query:"purge" doc:"Erase the memory and the content of its history; one PURGE event without content stays."`
}

// SaveMemoryRequest is the body of memory_save.
type SaveMemoryRequest struct {
	Type       string   `json:"type" enum:"preference,fact,goal,project,constraint" doc:"What kind of memory it is."`
	Content    string   `json:"content" minLength:"1" maxLength:"1000" doc:"At most 1000 characters."`
	Importance *int     `json:"importance,omitempty" minimum:"1" maximum:"5" doc:"Default 3."`
	Confidence *float64 `json:"confidence,omitempty" minimum:"0" maximum:"1" doc:"Default 0.8."`
	TTLDays    *int     `json:"ttl_days,omitempty" minimum:"0" maximum:"36500" doc:"Days until the memory expires, counted again from each time it is restated (saved again, extracted again, merged); 0: it never expires. Absent: a new memory takes the default (LONG_TERM_MEMORY_DEFAULT_TTL_DAYS; for a constraint LONG_TERM_MEMORY_CONSTRAINT_TTL_DAYS, default never), an existing one of the same type keeps its lifetime."`
	Pinned     *bool    `json:"pinned,omitempty" doc:"True: a standing memory, put in every context block whatever the question (like constraints and memories of importance ENGRAM_CONTEXT_STANDING_MIN_IMPORTANCE or more). Absent: a new memory is not pinned, an existing one keeps its pin."`
}

// draft is the use case's input: memory_save over HTTP and as a tool.
func (r SaveMemoryRequest) draft() memory.DraftInput {
	return memory.DraftInput{Type: r.Type, Content: r.Content, Importance: r.Importance, Confidence: r.Confidence, TTLDays: r.TTLDays, Pinned: r.Pinned}
}

// SaveMemoryBody is the body of PUT …/memories/{key}: memory_save and the
// memory's attributes (the tool keeps to memory_save's fields).
type SaveMemoryBody struct {
	SaveMemoryRequest
	AttributesRequest
}

func (b SaveMemoryBody) draft() memory.DraftInput {
	in := b.SaveMemoryRequest.draft()
	in.Attributes = b.AttributesRequest.input()
	return in
}

// PatchMemoryRequest is the body of memory_patch: how the memory is kept.
type PatchMemoryRequest struct {
	Pinned     *bool          `json:"pinned,omitempty" doc:"True: a standing memory, in every context block whatever the question; false: only when relevant."`
	Importance *int           `json:"importance,omitempty" minimum:"1" maximum:"5" doc:"1 (minor) to 5 (essential); from ENGRAM_CONTEXT_STANDING_MIN_IMPORTANCE (4) a memory is standing."`
	TTLDays    *int           `json:"ttl_days,omitempty" minimum:"0" maximum:"36500" doc:"Days from now until it expires; 0: never."`
	Metadata   map[string]any `json:"metadata,omitempty" doc:"Replaces the memory's metadata: a JSON object of at most 16 KB; {} clears it."`
}

// patch is the use case's input.
func (r PatchMemoryRequest) patch(sc memory.Scope, key string) memories.Patch {
	return memories.Patch{Scope: sc, Key: key, Metadata: metadataJSON(r.Metadata),
		Settings: memory.Settings{Pinned: r.Pinned, Importance: r.Importance, TTLDays: r.TTLDays}}
}

type patchInput struct {
	KeyPath
	Body PatchMemoryRequest
}

type saveInput struct {
	KeyPath
	Body SaveMemoryBody
}

type saveOutput struct {
	Status int
	Body   Memory
}

// AppendMemoryRequest is the body of memory_append.
type AppendMemoryRequest struct {
	Content string `json:"content" minLength:"1" maxLength:"1000" doc:"Text to add; the memory must stay within 1000 characters."`
}

type appendInput struct {
	KeyPath
	Body AppendMemoryRequest
}

type memoryOutput struct {
	Body Memory
}

type getInput struct {
	KeyPath
	IncludeInactive bool `query:"include_inactive" doc:"Also return a deleted or expired memory."`
}

type listInput struct {
	UserPath
	Type            []string `query:"type,explode" doc:"Only these types (repeat or comma-separate)."`
	IncludeInactive bool     `query:"include_inactive" doc:"Also deleted and expired memories."`
	Q               string   `query:"q" maxLength:"200" doc:"Case-insensitive substring of the key or content."`
	Limit           int      `query:"limit" minimum:"1" maximum:"1000" default:"100" doc:"Memories per page."`
	Cursor          string   `query:"cursor" maxLength:"512" doc:"next_cursor of the previous page."`
}

// MemoryList is one page of memory_list.
type MemoryList struct {
	Items      []Memory `json:"items"`
	NextCursor string   `json:"next_cursor,omitempty" doc:"Absent on the last page."`
}

func fromMemoryList(res memories.ListResult) MemoryList {
	out := MemoryList{Items: make([]Memory, 0, len(res.Items)), NextCursor: res.NextCursor}
	for _, m := range res.Items {
		out.Items = append(out.Items, fromMemory(m))
	}
	return out
}

type listOutput struct {
	Body MemoryList
}

// MemoryHistory is every change of one memory, oldest first.
type MemoryHistory struct {
	Events []MemoryEvent `json:"events"`
}

type historyOutput struct {
	Body MemoryHistory
}

// RevertRequest names the event whose result the memory returns to.
type RevertRequest struct {
	EventID string `json:"event_id" minLength:"1" maxLength:"64" doc:"An event of the memory's history (GET …/history): the memory returns to what that event left."`
}

type revertInput struct {
	KeyPath
	Body RevertRequest
}

// Memories is what the memory operations need.
type Memories interface {
	Save(ctx context.Context, cmd memories.Save) (memories.SaveResult, error)
	Append(ctx context.Context, cmd memories.Append) (memory.Memory, error)
	Delete(ctx context.Context, cmd memories.Delete) error
	Get(ctx context.Context, q memories.Get) (memory.Memory, error)
	List(ctx context.Context, q memories.List) (memories.ListResult, error)
	History(ctx context.Context, q memories.History) ([]memory.Event, error)
	Revert(ctx context.Context, cmd memories.Revert) (memory.Memory, error)
	Patch(ctx context.Context, cmd memories.Patch) (memory.Memory, error)
}

// RegisterMemories adds the explicit tools channel: the long-term memory routes.
func RegisterMemories(api *API, svc Memories) {
	tags := []string{"memories"}
	describeTag(api.Root, "memories", "Long-term memories, one per key of a user: the explicit tools channel "+
		"(memory_save, memory_append, memory_delete, memory_list) and each memory's history.")
	registerMemoryWrites(api, svc, tags)
	registerMemoryReads(api, svc, tags)
}

// registerMemoryWrites adds save, patch, append and delete.
func registerMemoryWrites(api *API, svc Memories, tags []string) {
	log := api.opts.Logger
	register(api, huma.Operation{
		OperationID: "memory_save", Method: http.MethodPut, Path: "/users/{user}/memories/{key}",
		Summary: "Save a memory (create or overwrite by key)", Tags: tags, DefaultStatus: http.StatusOK,
		Description: "201 when the key is new to the user (or was deleted), 200 when replaced. Noise keys are refused with 422; " +
			"409 while the user is being erased (DELETE /v1/users/{user}), naming the erasure job.",
		Responses: map[string]*huma.Response{"201": {Description: "Created"}},
		Errors:    []int{http.StatusBadRequest, refusedWhileErasing, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity},
	}, func(ctx context.Context, in *saveInput) (*saveOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		res, err := svc.Save(ctx, memories.Save{Scope: sc, Key: in.Key, Draft: in.Body.draft()})
		if err != nil {
			return nil, problem(ctx, log, err, "body")
		}
		status := http.StatusOK
		if res.Created {
			status = http.StatusCreated
		}
		return &saveOutput{Status: status, Body: fromMemory(res.Memory)}, nil
	})

	register(api, huma.Operation{
		OperationID: "memory_patch", Method: http.MethodPatch, Path: "/users/{user}/memories/{key}",
		Summary: "Pin a memory, or change its importance or lifetime", Tags: tags,
		Description: "Changes how the live memory with this key is kept without saying its content again: pinned (a standing " +
			"memory, in every context block), importance, ttl_days (from now; 0: never expires). Fields left out stay. 404 when " +
			"the key is absent, deleted or expired; 409 while the user is being erased.",
		Errors: []int{http.StatusNotFound, refusedWhileErasing, http.StatusUnprocessableEntity},
	}, func(ctx context.Context, in *patchInput) (*memoryOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		m, err := svc.Patch(ctx, in.Body.patch(sc, in.Key))
		if err != nil {
			return nil, problem(ctx, log, err, "body")
		}
		return &memoryOutput{Body: fromMemory(m)}, nil
	})

	register(api, huma.Operation{
		OperationID: "memory_append", Method: http.MethodPost, Path: "/users/{user}/memories/{key}/append",
		Summary: "Append to a memory", Tags: tags,
		Description: "Adds the text to the live memory with this key, on a new line; 404 when the key is absent, " +
			"deleted or expired (save it instead), 422 when the result would exceed 1000 characters, 409 while the user " +
			"is being erased.",
		Errors: []int{http.StatusNotFound, refusedWhileErasing, http.StatusUnprocessableEntity},
	}, func(ctx context.Context, in *appendInput) (*memoryOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		m, err := svc.Append(ctx, memories.Append{Scope: sc, Key: in.Key, Content: in.Body.Content})
		if err != nil {
			return nil, problem(ctx, log, err, "body")
		}
		return &memoryOutput{Body: fromMemory(m)}, nil
	})

	register(api, huma.Operation{
		OperationID: "memory_delete", Method: http.MethodDelete, Path: "/users/{user}/memories/{key}",
		Summary: "Delete a memory", Tags: tags, DefaultStatus: http.StatusNoContent,
		Description: "The memory is deactivated; its history keeps it and it can be reverted. With ?purge=true it is " +
			"erased instead: the memory, the content of its history, its vector and lexical document; one PURGE event " +
			"without content stays in its history. 409 while the user is being erased; 501 for ?purge=true on a server " +
			"built without erasure (the engram binary always has it).",
		Errors: []int{http.StatusNotFound, http.StatusConflict, StatusOf(errNoPurge)},
	}, func(ctx context.Context, in *deleteInput) (*struct{}, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		if in.Purge {
			if api.erasure == nil {
				return nil, problem(ctx, log, errNoPurge, "query")
			}
			_, err := api.erasure.PurgeMemory(ctx, erasure.PurgeMemory{Scope: sc, Key: in.Key})
			return nil, problem(ctx, log, err, "path")
		}
		if err := svc.Delete(ctx, memories.Delete{Scope: sc, Key: in.Key}); err != nil {
			return nil, problem(ctx, log, err, "path")
		}
		return nil, nil
	})
}

// registerMemoryReads adds get, list and history, and revert, which reads the
// history it returns to.
func registerMemoryReads(api *API, svc Memories, tags []string) {
	log := api.opts.Logger
	register(api, huma.Operation{
		OperationID: "memory_get", Method: http.MethodGet, Path: "/users/{user}/memories/{key}",
		Summary: "Read a memory", Tags: tags, Errors: []int{http.StatusNotFound},
		Description: "The live memory with this key; 404 when it is absent, deleted, expired or a noise key " +
			"(include_inactive also returns a deleted or expired one).",
	}, func(ctx context.Context, in *getInput) (*memoryOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		m, err := svc.Get(ctx, memories.Get{Scope: sc, Key: in.Key, IncludeInactive: in.IncludeInactive})
		if err != nil {
			return nil, problem(ctx, log, err, "query")
		}
		return &memoryOutput{Body: fromMemory(m)}, nil
	})

	register(api, huma.Operation{
		OperationID: "memory_list", Method: http.MethodGet, Path: "/users/{user}/memories",
		Summary: "List memories", Tags: tags, Errors: []int{http.StatusUnprocessableEntity},
		Description: "Ordered by key. Deleted, expired and noise-key memories are left out unless include_inactive (noise keys always).",
	}, func(ctx context.Context, in *listInput) (*listOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		res, err := svc.List(ctx, memories.List{Scope: sc, Types: in.Type, IncludeInactive: in.IncludeInactive,
			Contains: in.Q, Limit: in.Limit, Cursor: in.Cursor})
		if err != nil {
			return nil, problem(ctx, log, err, "query")
		}
		return &listOutput{Body: fromMemoryList(res)}, nil
	})

	register(api, huma.Operation{
		OperationID: "memory_history", Method: http.MethodGet, Path: "/users/{user}/memories/{key}/history",
		Summary: "Every change of a memory", Tags: tags, Errors: []int{http.StatusNotFound},
		Description: "Every event of the key, oldest first, with the memory before and after it and the message " +
			"or tool call that caused it; 404 only for a key never written.",
	}, func(ctx context.Context, in *KeyPath) (*historyOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		events, err := svc.History(ctx, memories.History{Scope: sc, Key: in.Key})
		if err != nil {
			return nil, problem(ctx, log, err, "path")
		}
		out := &historyOutput{Body: MemoryHistory{Events: make([]MemoryEvent, 0, len(events))}}
		for _, e := range events {
			out.Body.Events = append(out.Body.Events, fromEvent(e))
		}
		return out, nil
	})

	register(api, huma.Operation{
		OperationID: "memory_revert", Method: http.MethodPost, Path: "/users/{user}/memories/{key}/revert",
		Summary: "Return a memory to what it was after an event", Tags: tags,
		Description: "Records a REVERT event whose result is the memory as that event left it (a deleted memory " +
			"comes back), so an undo can itself be undone. event_id is an id from the key's history. 409 while the user " +
			"is being erased.",
		Errors: []int{http.StatusNotFound, refusedWhileErasing, http.StatusUnprocessableEntity},
	}, func(ctx context.Context, in *revertInput) (*memoryOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		m, err := svc.Revert(ctx, memories.Revert{Scope: sc, Key: in.Key, EventID: in.Body.EventID})
		if err != nil {
			return nil, problem(ctx, log, err, "body")
		}
		return &memoryOutput{Body: fromMemory(m)}, nil
	})
}

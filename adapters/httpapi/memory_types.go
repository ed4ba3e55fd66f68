package httpapi

import (
	"encoding/json"
	"time"

	"engram/domain/memory"
)

// Memory is a long-term memory as clients see it.
type Memory struct {
	ID             string       `json:"id" doc:"The memory's id: unique across the server and kept for the memory's whole life (every change, delete and revert keeps it), so it names the memory without its user or key."`
	Key            string       `json:"key" doc:"The normalised key (NFKC, lower case, separator runs as one '-'; letters and digits of any script, '_', '.', '-'), at most 160 characters."`
	Type           string       `json:"type" enum:"preference,fact,goal,project,constraint"`
	Content        string       `json:"content"`
	Importance     int          `json:"importance" minimum:"1" maximum:"5"`
	Confidence     float64      `json:"confidence" minimum:"0" maximum:"1"`
	Active         bool         `json:"active" doc:"False once deleted (or when an event deactivated it)."`
	ExpiresAt      *time.Time   `json:"expires_at" nullable:"true" doc:"Null: never expires."`
	LastAccessedAt *time.Time   `json:"last_accessed_at" nullable:"true"`
	Source         MemorySource `json:"source"`
	Vector         VectorInfo   `json:"vector"`
	Flags          []string     `json:"flags" nullable:"false" doc:"What a context builder must know about the content, always an array: instruction_like when it reads as an instruction to the assistant (kept as data, to be quoted or left out, never followed); secret when it holds a secret or an identity number stored as given (ENGRAM_SECRETS=flag): never injected into a context block, and returned by a search only with include_secrets. Recomputed on every change of content."`
	Pinned         bool         `json:"pinned" doc:"A standing memory: in every context block whatever the question."`
	AttributesResponse
	Version   int64     `json:"version" doc:"Increases with every change."`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// MemorySource says which write path last changed a memory.
type MemorySource struct {
	ConversationID string `json:"conversation_id,omitempty"`
	MessageID      string `json:"message_id,omitempty"`
	Channel        string `json:"channel" enum:"tool,extraction,consolidation"`
}

// VectorInfo is the memory's state in the vector index.
type VectorInfo struct {
	Status   string     `json:"status" enum:"DIRTY,SYNCED,FAILED"`
	SyncedAt *time.Time `json:"synced_at" nullable:"true"`
	Error    string     `json:"error,omitempty"`
	Model    string     `json:"model,omitempty"`
	Version  int        `json:"version,omitempty"`
}

// MemoryEvent is one recorded change.
type MemoryEvent struct {
	ID     string       `json:"id"`
	Op     string       `json:"op" enum:"ADD,UPDATE,APPEND,DELETE,REVERT,MERGE,EXPIRE,PURGE" doc:"PURGE: the memory and its history's content were erased; its after holds no content."`
	Before *Memory      `json:"before" doc:"Null for the first ADD."`
	After  Memory       `json:"after"`
	Source MemorySource `json:"source"`
	At     time.Time    `json:"at"`
}

func fromMemory(m memory.Memory) Memory {
	return fromState(m.State())
}

func fromState(s memory.State) Memory {
	return Memory{
		ID:                 s.ID,
		AttributesResponse: fromAttributes(s.Attributes),
		Key:                s.Key.String(),
		Type:               string(s.Type),
		Content:            s.Content,
		Importance:         s.Importance,
		Confidence:         s.Confidence,
		Active:             s.Active,
		ExpiresAt:          timePtr(s.ExpiresAt),
		LastAccessedAt:     timePtr(s.LastAccessedAt),
		Source:             fromSource(s.Source),
		Vector: VectorInfo{
			Status:   string(s.Vector.Status),
			SyncedAt: timePtr(s.Vector.SyncedAt),
			Error:    s.Vector.Error,
			Model:    s.Vector.Model,
			Version:  s.Vector.Version,
		},
		Flags:     fromFlags(s.Flags),
		Pinned:    s.Pinned,
		Version:   s.Version,
		CreatedAt: s.CreatedAt.UTC(),
		UpdatedAt: s.UpdatedAt.UTC(),
	}
}

// fromFlags is never nil, so the API always answers an array.
func fromFlags(f memory.FlagSet) []string {
	out := []string{}
	for _, flag := range f.List() {
		out = append(out, string(flag))
	}
	return out
}

func fromSource(s memory.Source) MemorySource {
	return MemorySource{ConversationID: s.ConversationID, MessageID: s.MessageID, Channel: string(s.Channel)}
}

func fromEvent(e memory.Event) MemoryEvent {
	out := MemoryEvent{ID: e.ID, Op: string(e.Op), After: fromState(e.After), Source: fromSource(e.Source), At: e.At.UTC()}
	if e.Before != nil {
		b := fromState(*e.Before)
		out.Before = &b
	}
	return out
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

// AttributesRequest is what else a memory or a message is about beside its user,
// as a client names it: all optional.
type AttributesRequest struct {
	AgentID  string         `json:"agent_id,omitempty" maxLength:"128" doc:"The agent it belongs to or was said to."`
	AppID    string         `json:"app_id,omitempty" maxLength:"128" doc:"The application it belongs to."`
	RunID    string         `json:"run_id,omitempty" maxLength:"128" doc:"The run (a conversation, a task) it belongs to."`
	Metadata map[string]any `json:"metadata,omitempty" doc:"The client's own JSON object, at most 16 KB once compacted; returned as given (keys sorted)."`
}

// input is the domain's AttributesInput; the domain checks the ids, the object
// and its size.
func (r AttributesRequest) input() memory.AttributesInput {
	return memory.AttributesInput{AgentID: r.AgentID, AppID: r.AppID, RunID: r.RunID, Metadata: metadataJSON(r.Metadata)}
}

// metadataJSON re-encodes a decoded metadata object for the domain to validate;
// nil when absent. An object decoded from JSON always encodes again; if one did
// not, the text it gets is refused as "not a JSON object".
func metadataJSON(obj map[string]any) []byte {
	if obj == nil {
		return nil
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		return []byte("?")
	}
	return raw
}

// AttributesResponse is the attributes as the API answers them; absent ones are
// left out.
type AttributesResponse struct {
	AgentID  string         `json:"agent_id,omitempty"`
	AppID    string         `json:"app_id,omitempty"`
	RunID    string         `json:"run_id,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty" doc:"The client's JSON object, keys sorted."`
}

func fromAttributes(a memory.Attributes) AttributesResponse {
	return AttributesResponse{AgentID: a.AgentID, AppID: a.AppID, RunID: a.RunID, Metadata: a.Metadata.Values()}
}

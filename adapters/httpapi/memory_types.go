package httpapi

import (
	"time"

	"engram/domain/memory"
)

// Memory is a long-term memory as clients see it.
type Memory struct {
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
	Version        int64        `json:"version" doc:"Increases with every change."`
	CreatedAt      time.Time    `json:"created_at"`
	UpdatedAt      time.Time    `json:"updated_at"`
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
		Key:            s.Key.String(),
		Type:           string(s.Type),
		Content:        s.Content,
		Importance:     s.Importance,
		Confidence:     s.Confidence,
		Active:         s.Active,
		ExpiresAt:      timePtr(s.ExpiresAt),
		LastAccessedAt: timePtr(s.LastAccessedAt),
		Source:         fromSource(s.Source),
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

package mem0api

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"time"

	"engram/domain/memfilter"
	"engram/domain/memory"
)

// This file is the one place that maps engram's memories to mem0's: ids, field
// names, categories, history events.

// A memory's mem0 id is engram's memory id: unique across the server and kept
// for the memory's whole life, so /v1/memories/{id}/ needs no user.

// messageID is the id of the i-th message of an add's batch.
func messageID(batch string, i int) string { return batch + "-" + strconv.Itoa(i) }

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// mem0MemoryJSON is a memory as mem0 serves it.
type mem0MemoryJSON struct {
	ID             string         `json:"id" doc:"The memory's id: engram's, kept for the memory's whole life."`
	Memory         string         `json:"memory" doc:"What the memory says."`
	UserID         *string        `json:"user_id" doc:"The user it belongs to."`
	AgentID        *string        `json:"agent_id" doc:"The agent of the add that wrote it."`
	AppID          *string        `json:"app_id" doc:"The app of the add that wrote it."`
	RunID          *string        `json:"run_id" doc:"The run of the add that wrote it."`
	Hash           string         `json:"hash" doc:"MD5 of the text."`
	Metadata       map[string]any `json:"metadata" doc:"The metadata of the add that wrote it."`
	Categories     []string       `json:"categories" doc:"engram's type of the memory (preference, fact, goal, project, constraint)."`
	CreatedAt      string         `json:"created_at" doc:"When it was first written."`
	UpdatedAt      string         `json:"updated_at" doc:"When it last changed."`
	ExpirationDate *string        `json:"expiration_date" doc:"When it expires; null: never."`
	Immutable      bool           `json:"immutable" doc:"Always false."`
	Score          *float64       `json:"score,omitempty" doc:"Search only: relevance in [0, 1], best first."`
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toMemoryJSON(m memory.Memory) mem0MemoryJSON {
	sum := md5.Sum([]byte(m.Content()))
	attrs := m.Attributes()
	out := mem0MemoryJSON{
		ID: m.ID(), Memory: m.Content(), UserID: strPtr(m.Scope().User),
		AgentID: strPtr(attrs.AgentID), AppID: strPtr(attrs.AppID), RunID: strPtr(attrs.RunID), Metadata: metadataOf(attrs),
		Hash: hex.EncodeToString(sum[:]), Categories: []string{string(m.Type())},
		CreatedAt: stamp(m.CreatedAt()), UpdatedAt: stamp(m.UpdatedAt()),
	}
	if !m.ExpiresAt().IsZero() {
		out.ExpirationDate = strPtr(m.ExpiresAt().UTC().Format(time.DateOnly))
	}
	return out
}

// subject is a memory as a filter sees it.
type subject struct{ m memory.Memory }

var _ memfilter.Subject = subject{}

func (s subject) MemoryID() string { return s.m.ID() }

func (s subject) Entity(f memfilter.Field) string {
	attrs := s.m.Attributes()
	switch f {
	case memfilter.UserID:
		return s.m.Scope().User
	case memfilter.AgentID:
		return attrs.AgentID
	case memfilter.AppID:
		return attrs.AppID
	case memfilter.RunID:
		return attrs.RunID
	}
	return ""
}

func (s subject) Time(f memfilter.Field) time.Time {
	switch f {
	case memfilter.CreatedAt:
		return s.m.CreatedAt()
	case memfilter.UpdatedAt:
		return s.m.UpdatedAt()
	case memfilter.ExpirationDate:
		return s.m.ExpiresAt()
	}
	return time.Time{}
}

func (s subject) Categories() []string     { return []string{string(s.m.Type())} }
func (s subject) Metadata() map[string]any { return metadataOf(s.m.Attributes()) }
func (s subject) Text() string             { return s.m.Content() }

// historyEvent is mem0's name for what an engram event did.
func historyEvent(op memory.Op) string {
	switch op {
	case memory.OpAdd:
		return "ADD"
	case memory.OpDelete, memory.OpPurge, memory.OpExpire:
		return "DELETE"
	}
	return "UPDATE" // UPDATE, APPEND, REVERT, MERGE
}

// mem0HistoryJSON is one entry of a memory's history.
type mem0HistoryJSON struct {
	ID         string   `json:"id" doc:"The event's id."`
	MemoryID   string   `json:"memory_id" doc:"The memory's id."`
	Input      []any    `json:"input" doc:"Always empty: engram keeps the messages with their own ids."`
	OldMemory  *string  `json:"old_memory" doc:"The text before the change; null for an ADD."`
	NewMemory  *string  `json:"new_memory" doc:"The text after it; null for a DELETE."`
	UserID     string   `json:"user_id" doc:"The user."`
	Categories []string `json:"categories" doc:"The memory's type after the change."`
	Event      string   `json:"event" doc:"ADD, UPDATE or DELETE."`
	CreatedAt  string   `json:"created_at" doc:"When it happened."`
	UpdatedAt  string   `json:"updated_at" doc:"When it happened."`
}

func toHistoryJSON(memoryID string, e memory.Event) mem0HistoryJSON {
	out := mem0HistoryJSON{ID: e.ID, MemoryID: memoryID, Input: []any{}, UserID: e.Scope.User,
		Categories: []string{string(e.After.Type)}, Event: historyEvent(e.Op), CreatedAt: stamp(e.At), UpdatedAt: stamp(e.At)}
	if e.Before != nil {
		out.OldMemory = strPtr(e.Before.Content)
	}
	if out.Event != "DELETE" {
		out.NewMemory = strPtr(e.After.Content)
	}
	return out
}

// mem0ResultJSON is one change an add made, as mem0 reports it.
type mem0ResultJSON struct {
	ID    string             `json:"id" doc:"The memory's id."`
	Event string             `json:"event" doc:"ADD, UPDATE, DELETE or NOOP."`
	Data  mem0ResultDataJSON `json:"data" doc:"What the memory says now."`
}

type mem0ResultDataJSON struct {
	Memory string `json:"memory" doc:"The memory's text."`
}

func itoa(i int) string { return strconv.Itoa(i) }

// metadataOf is the memory's metadata as decoded JSON (numbers as float64, as
// a filter's values are); nil when it has none.
func metadataOf(a memory.Attributes) map[string]any {
	if a.Metadata.IsZero() {
		return nil
	}
	var out map[string]any
	if json.Unmarshal([]byte(a.Metadata.JSON()), &out) != nil {
		return nil
	}
	return out
}

// attributesOf are the attributes an add names.
func attributesOf(e mem0EntityJSON, metadata json.RawMessage) memory.AttributesInput {
	return memory.AttributesInput{AgentID: e.AgentID, AppID: e.AppID, RunID: e.RunID, Metadata: metadata}
}

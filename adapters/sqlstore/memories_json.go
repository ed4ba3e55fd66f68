package sqlstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"engram/domain/memory"
)

// stateJSON is how a memory is written into an event's before and after: the
// column names of long_term_memories, so that SQL users read one vocabulary. The
// domain types carry no tags; this shape is the adapter's own.
type stateJSON struct {
	ID             string          `json:"id"`
	TenantID       string          `json:"tenant_id"`
	UserID         string          `json:"user_id"`
	MemoryKey      string          `json:"memory_key"`
	MemoryType     string          `json:"memory_type"`
	Content        string          `json:"content"`
	Importance     int             `json:"importance"`
	Confidence     float64         `json:"confidence"`
	IsActive       bool            `json:"is_active"`
	ExpiresAt      *time.Time      `json:"expires_at,omitempty"`
	TTLDays        *int            `json:"ttl_days,omitempty"` // absent in events written before lifetimes were kept
	Pinned         bool            `json:"pinned,omitempty"`
	AgentID        string          `json:"agent_id,omitempty"`
	AppID          string          `json:"app_id,omitempty"`
	RunID          string          `json:"run_id,omitempty"`
	Metadata       json.RawMessage `json:"metadata,omitempty"`
	LastAccessedAt *time.Time      `json:"last_accessed_at,omitempty"`
	Source         sourceJSON      `json:"source"`
	Vector         vectorJSON      `json:"vector"`
	Flags          *[]string       `json:"flags,omitempty"` // absent in events written before flags were kept
	Version        int64           `json:"version"`
	CreatedAt      time.Time       `json:"created_at"`
	UpdatedAt      time.Time       `json:"updated_at"`
}

type sourceJSON struct {
	Channel        string `json:"channel,omitempty"`
	ConversationID string `json:"conversation_id,omitempty"`
	MessageID      string `json:"message_id,omitempty"`
}

type vectorJSON struct {
	Status   string     `json:"status"`
	SyncedAt *time.Time `json:"synced_at,omitempty"`
	Error    string     `json:"error,omitempty"`
	Model    string     `json:"model,omitempty"`
	Version  int        `json:"version,omitempty"`
	TextHash string     `json:"text_hash,omitempty"`
}

func marshalState(st memory.State) (string, error) {
	j := stateJSON{
		ID:             st.ID,
		TenantID:       st.Scope.Tenant,
		UserID:         st.Scope.User,
		MemoryKey:      st.Key.String(),
		MemoryType:     string(st.Type),
		Content:        st.Content,
		Importance:     st.Importance,
		Confidence:     st.Confidence,
		IsActive:       st.Active,
		ExpiresAt:      optionalTime(st.ExpiresAt),
		TTLDays:        &st.TTLDays,
		Pinned:         st.Pinned,
		AgentID:        st.Attributes.AgentID,
		AppID:          st.Attributes.AppID,
		RunID:          st.Attributes.RunID,
		Metadata:       rawMetadata(st.Attributes.Metadata),
		LastAccessedAt: optionalTime(st.LastAccessedAt),
		Source: sourceJSON{
			Channel:        string(st.Source.Channel),
			ConversationID: st.Source.ConversationID,
			MessageID:      st.Source.MessageID,
		},
		Vector: vectorJSON{
			Status:   string(st.Vector.Status),
			SyncedAt: optionalTime(st.Vector.SyncedAt),
			Error:    st.Vector.Error,
			Model:    st.Vector.Model,
			Version:  st.Vector.Version,
			TextHash: st.Vector.TextHash,
		},
		Flags:     flagsToJSON(st.Flags),
		Version:   st.Version,
		CreatedAt: dbTime(st.CreatedAt),
		UpdatedAt: dbTime(st.UpdatedAt),
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // memory text stays readable in SQL
	if err := enc.Encode(j); err != nil {
		return "", fmt.Errorf("sqlstore: encode memory %s: %w", st.ID, err)
	}
	return string(bytes.TrimRight(b.Bytes(), "\n")), nil
}

func unmarshalState(s string) (memory.State, error) {
	var j stateJSON
	if err := json.Unmarshal([]byte(s), &j); err != nil {
		return memory.State{}, err
	}
	return memory.State{
		ID:         j.ID,
		Scope:      memory.Scope{Tenant: j.TenantID, User: j.UserID},
		Key:        memory.RestoreKey(j.MemoryKey),
		Type:       memory.Type(j.MemoryType),
		Content:    j.Content,
		Importance: j.Importance,
		Confidence: j.Confidence,
		Active:     j.IsActive,
		ExpiresAt:  timeOrZero(j.ExpiresAt),
		TTLDays:    ttlDaysFromRow(j.TTLDays, timeOrZero(j.ExpiresAt), dbTime(j.UpdatedAt)),
		Pinned:     j.Pinned,
		Attributes: memory.Attributes{AgentID: j.AgentID, AppID: j.AppID, RunID: j.RunID,
			Metadata: metadataFromJSON(j.Metadata)},
		LastAccessedAt: timeOrZero(j.LastAccessedAt),
		Source: memory.Source{
			Channel:        memory.Channel(j.Source.Channel),
			ConversationID: j.Source.ConversationID,
			MessageID:      j.Source.MessageID,
		},
		Vector: memory.VectorState{
			Status:   memory.VectorStatus(j.Vector.Status),
			SyncedAt: timeOrZero(j.Vector.SyncedAt),
			Error:    j.Vector.Error,
			Model:    j.Vector.Model,
			Version:  j.Vector.Version,
			TextHash: j.Vector.TextHash,
		},
		Flags:     flagsFromJSON(j.Flags, j.Content),
		Version:   j.Version,
		CreatedAt: dbTime(j.CreatedAt),
		UpdatedAt: dbTime(j.UpdatedAt),
	}, nil
}

func rawMetadata(m memory.Metadata) json.RawMessage {
	if m.IsZero() {
		return nil
	}
	return json.RawMessage(m.JSON())
}

// metadataFromJSON reads an event's metadata back in its compact form: PostgreSQL
// keeps events as JSONB, which spaces and reorders the keys of what was written.
func metadataFromJSON(raw json.RawMessage) memory.Metadata {
	if len(raw) == 0 {
		return memory.Metadata{}
	}
	if m, err := memory.ParseMetadata("metadata", raw); err == nil {
		return m
	}
	return memory.RestoreMetadata(string(raw))
}

func flagsToJSON(f memory.FlagSet) *[]string {
	names := []string{}
	for _, flag := range f.List() {
		names = append(names, string(flag))
	}
	return &names
}

func flagsFromJSON(names *[]string, content string) memory.FlagSet {
	if names == nil {
		return memory.ContentFlags(content) // an event written before flags were kept
	}
	flags := make([]memory.Flag, len(*names))
	for i, n := range *names {
		flags[i] = memory.Flag(n)
	}
	return memory.NewFlagSet(flags...)
}

func optionalTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = dbTime(t)
	return &t
}

func timeOrZero(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return dbTime(*t)
}

package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
	"unicode/utf8"

	"engram/domain/invalid"
)

// Limits and defaults of long-term memories (the long_term_memories table).
const (
	MaxContentLen     = 1000 // characters (runes), not bytes
	MinImportance     = 1
	MaxImportance     = 5
	DefaultImportance = 3
	DefaultConfidence = 0.8
	MaxTTLDays        = 36500
)

// Channel is which write path produced a change.
type Channel string

const (
	ChannelTool          Channel = "tool"          // explicit memory_* calls by an agent
	ChannelExtraction    Channel = "extraction"    // the asynchronous pipeline over conversations
	ChannelConsolidation Channel = "consolidation" // background clean-up
)

// Source says where a change came from, so a user can trace a memory to the message
// that caused it.
type Source struct {
	Channel        Channel
	ConversationID string
	MessageID      string
}

// VectorStatus is the state of a memory's entry in the vector index.
type VectorStatus string

const (
	VectorDirty  VectorStatus = "DIRTY"  // the index does not reflect the truth yet
	VectorSynced VectorStatus = "SYNCED" // the index matches this version
	VectorFailed VectorStatus = "FAILED" // the last sync failed; it will be retried
)

// VectorState is a memory's vector bookkeeping (the vector_* columns).
type VectorState struct {
	Status   VectorStatus
	SyncedAt time.Time // zero until the first sync
	Error    string
	Model    string
	Version  int
	TextHash string // sha256 of the index text last embedded
}

// State is every field of a memory as plain data. Adapters convert rows to and from
// it; events keep copies of it. Code outside storage builds memories with New and
// changes them with the methods of Memory, which keep the invariants.
type State struct {
	ID         string
	Scope      Scope
	Key        Key
	Type       Type
	Content    string
	Importance int
	Confidence float64
	Active     bool
	ExpiresAt  time.Time // zero: never expires
	// TTLDays is the lifetime ExpiresAt was set from, in days; 0: the memory never
	// expires. Restating the memory restarts it from then (Renewed).
	TTLDays int
	// Pinned makes the memory a standing one: put in front of the agent whatever
	// the question, like a constraint.
	Pinned bool
	// Attributes are the agent, app and run the memory is also about, and the
	// client's metadata.
	Attributes     Attributes
	LastAccessedAt time.Time // zero: never read
	Source         Source
	Vector         VectorState
	Flags          FlagSet // follow from Content (ContentFlags)
	Version        int64   // increases with every change of content or activity
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Memory is one long-term memory. The zero value is not a valid memory.
type Memory struct {
	s State
}

// Restore rebuilds a memory loaded from storage without validating it: what was
// stored was valid when written, and refusing to read it back would lose data.
func Restore(s State) Memory { return Memory{s: s} }

// State returns a copy of every field.
func (m Memory) State() State { return m.s }

func (m Memory) ID() string                { return m.s.ID }
func (m Memory) Scope() Scope              { return m.s.Scope }
func (m Memory) Key() Key                  { return m.s.Key }
func (m Memory) Type() Type                { return m.s.Type }
func (m Memory) Content() string           { return m.s.Content }
func (m Memory) Importance() int           { return m.s.Importance }
func (m Memory) Confidence() float64       { return m.s.Confidence }
func (m Memory) Active() bool              { return m.s.Active }
func (m Memory) ExpiresAt() time.Time      { return m.s.ExpiresAt }
func (m Memory) TTLDays() int              { return m.s.TTLDays }
func (m Memory) Pinned() bool              { return m.s.Pinned }
func (m Memory) Attributes() Attributes    { return m.s.Attributes }
func (m Memory) LastAccessedAt() time.Time { return m.s.LastAccessedAt }
func (m Memory) Source() Source            { return m.s.Source }
func (m Memory) Vector() VectorState       { return m.s.Vector }
func (m Memory) Flags() []Flag             { return m.s.Flags.List() }
func (m Memory) Version() int64            { return m.s.Version }
func (m Memory) CreatedAt() time.Time      { return m.s.CreatedAt }
func (m Memory) UpdatedAt() time.Time      { return m.s.UpdatedAt }

// Draft is what a writer wants a memory to say. Build it with ParseDraft.
type Draft struct {
	Type       Type
	Content    string
	Importance int
	Confidence float64
	// TTLDays is the lifetime asked for; 0: none asked, so a new memory takes the
	// policy's default for its type and an existing one keeps its own (see
	// Policy.lifetime). NeverExpires asks for no expiry at all.
	TTLDays      int
	NeverExpires bool
	// Pinned sets or clears the pin; nil: a new memory is not pinned, an existing
	// one keeps its pin.
	Pinned *bool
	// Attributes are set on a new memory; on an existing one each id and the
	// metadata set here replace the memory's own, the others stay (Attributes.Over).
	Attributes Attributes
	Source     Source
}

// DraftInput is a draft as a client sends it: optional fields are nil when absent.
type DraftInput struct {
	Type       string
	Content    string
	Importance *int
	Confidence *float64
	TTLDays    *int // 0: never expires
	Pinned     *bool
	Attributes AttributesInput
}

// ParseDraft validates a client's draft and fills in the defaults.
func ParseDraft(in DraftInput, src Source) (Draft, error) {
	d := Draft{Importance: DefaultImportance, Confidence: DefaultConfidence, Source: src}
	var errs []error
	t, err := ParseType(in.Type)
	errs = append(errs, err)
	d.Type = t
	d.Content = strings.TrimSpace(in.Content)
	if in.Importance != nil {
		d.Importance = *in.Importance
	}
	if in.Confidence != nil {
		d.Confidence = *in.Confidence
	}
	if in.TTLDays != nil {
		d.TTLDays = *in.TTLDays
		d.NeverExpires = d.TTLDays == 0
	}
	d.Pinned = in.Pinned
	d.Attributes, err = ParseAttributes(in.Attributes)
	errs = append(errs, err)
	errs = append(errs, d.validate())
	if err := invalid.Join(errs...); err != nil {
		return Draft{}, err
	}
	return d, nil
}

func (d Draft) validate() error {
	var errs []error
	if _, err := ParseType(string(d.Type)); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, ValidateContent("content", d.Content))
	if d.Importance < MinImportance || d.Importance > MaxImportance {
		errs = append(errs, invalid.FieldValue("importance", d.Importance, "must be between %d and %d", MinImportance, MaxImportance))
	}
	if !(d.Confidence >= 0 && d.Confidence <= 1) { // also refuses NaN
		errs = append(errs, invalid.FieldValue("confidence", d.Confidence, "must be between 0 and 1"))
	}
	if d.TTLDays < 0 || d.TTLDays > MaxTTLDays {
		errs = append(errs, invalid.FieldValue("ttl_days", d.TTLDays, "must be between 0 (never expires) and %d days; leave it out for the default", MaxTTLDays))
	}
	return invalid.Join(errs...)
}

// ValidateContent checks memory text: not blank, at most MaxContentLen characters.
func ValidateContent(field, content string) error {
	if strings.TrimSpace(content) == "" {
		return invalid.Field(field, "must not be empty")
	}
	if !utf8.ValidString(content) {
		return invalid.Field(field, "must be valid UTF-8")
	}
	if strings.IndexByte(content, 0) >= 0 {
		return invalid.Field(field, "must not contain NUL (U+0000) characters")
	}
	if n := utf8.RuneCountInString(content); n > MaxContentLen {
		return invalid.Field(field, "must be at most %d characters, got %d", MaxContentLen, n)
	}
	return nil
}

// New creates a memory from a validated draft.
func New(id string, scope Scope, key Key, d Draft, p Policy, now time.Time) (Memory, error) {
	if err := d.validate(); err != nil {
		return Memory{}, err
	}
	if id == "" || scope.Tenant == "" || scope.User == "" || key.IsZero() {
		return Memory{}, invalid.Field("memory", "needs an id, a tenant, a user and a key")
	}
	ttl := p.lifetime(d, nil)
	return Memory{s: State{
		ID:         id,
		Scope:      scope,
		Key:        key,
		Type:       d.Type,
		Content:    d.Content,
		Importance: d.Importance,
		Confidence: d.Confidence,
		Active:     true,
		TTLDays:    ttl,
		ExpiresAt:  expiry(ttl, now),
		Pinned:     d.Pinned != nil && *d.Pinned,
		Attributes: d.Attributes,
		Source:     d.Source,
		Vector:     VectorState{Status: VectorDirty},
		Flags:      ContentFlags(d.Content),
		Version:    1,
		CreatedAt:  now,
		UpdatedAt:  now,
	}}, nil
}

// Replace overwrites the memory with the draft (memory_save on an existing key). A
// deleted or expired memory comes back to life with the new content. Its expiry
// restarts from now (Policy.lifetime says for how long).
func (m Memory) Replace(d Draft, p Policy, now time.Time) (Memory, error) {
	if err := d.validate(); err != nil {
		return Memory{}, err
	}
	ttl := p.lifetime(d, &m.s)
	next := m.changed(now, d.Source)
	next.s.Type = d.Type
	next.s.Content = d.Content
	next.s.Flags = ContentFlags(d.Content)
	next.s.Importance = d.Importance
	next.s.Confidence = d.Confidence
	next.s.Active = true
	next.s.TTLDays = ttl
	next.s.ExpiresAt = expiry(ttl, now)
	if d.Pinned != nil {
		next.s.Pinned = *d.Pinned
	}
	next.s.Attributes = m.s.Attributes.Over(d.Attributes)
	return next, nil
}

// AppendSeparator joins appended text to the existing content.
const AppendSeparator = "\n"

// Append adds text to the content (memory_append). The result must still fit the
// content limit; the caller is told to rewrite the memory instead.
func (m Memory) Append(text string, src Source, now time.Time) (Memory, error) {
	text = strings.TrimSpace(text)
	if err := ValidateContent("content", text); err != nil {
		return Memory{}, err
	}
	combined := m.s.Content + AppendSeparator + text
	if n := utf8.RuneCountInString(combined); n > MaxContentLen {
		return Memory{}, invalid.Field("content",
			"appending would make the memory %d characters, over the limit of %d; save a shorter version with memory_save instead",
			n, MaxContentLen)
	}
	next := m.changed(now, src)
	next.s.Content = combined
	next.s.Flags = ContentFlags(combined)
	return next, nil
}

// Deactivate is memory_delete: the row stays so the change can be seen and undone.
func (m Memory) Deactivate(src Source, now time.Time) Memory {
	next := m.changed(now, src)
	next.s.Active = false
	return next
}

// Purged is what is left of a memory purged with its history: who it belonged to,
// its id, key and type, its version and when it was purged — no content, no
// source message, no expiry, no vector. It is the after of the PURGE event.
func (m Memory) Purged(channel Channel, now time.Time) Memory {
	next := m.changed(now, Source{Channel: channel})
	next.s.Content = ""
	next.s.Active = false
	next.s.ExpiresAt = time.Time{}
	next.s.TTLDays = 0
	next.s.Pinned = false
	next.s.Attributes = Attributes{} // metadata is the client's text, as personal as the content
	next.s.LastAccessedAt = time.Time{}
	next.s.Vector = VectorState{}
	return next
}

// RevertTo makes the memory say what target said. Identity (id, scope, key, creation)
// is kept; the version moves forward so concurrent readers see a new change.
func (m Memory) RevertTo(target State, src Source, now time.Time) Memory {
	next := m.changed(now, src)
	next.s.Type = target.Type
	next.s.Content = target.Content
	next.s.Flags = ContentFlags(target.Content) // today's rules, not the ones of then
	next.s.Importance = target.Importance
	next.s.Confidence = target.Confidence
	next.s.Active = target.Active
	next.s.ExpiresAt = target.ExpiresAt
	next.s.TTLDays = target.TTLDays
	next.s.Pinned = target.Pinned
	next.s.Attributes = target.Attributes
	return next
}

// Touch records a read. It is not a change of the memory: no version, no event.
func (m Memory) Touch(now time.Time) Memory {
	m.s.LastAccessedAt = now
	return m
}

// changed is the common part of every content change: new version, new source,
// and the vector index must catch up.
func (m Memory) changed(now time.Time, src Source) Memory {
	m.s.Version++
	m.s.UpdatedAt = now
	m.s.Source = src
	m.s.Vector.Status = VectorDirty
	m.s.Vector.Error = ""
	return m
}

// IsExpired reports whether the memory's TTL has passed.
func (m Memory) IsExpired(now time.Time) bool {
	return !m.s.ExpiresAt.IsZero() && !now.Before(m.s.ExpiresAt)
}

// IsLive reports whether the memory may be shown to anyone: active, not expired,
// and not in a noise family.
func (m Memory) IsLive(now time.Time) bool {
	return m.s.Active && !m.IsExpired(now) && !IsNoise(m.s.Key)
}

// IndexText is what the vector index embeds: "[{type}] {key}: {content}".
func (m Memory) IndexText() string {
	return IndexTextOf(m.s.Type, m.s.Key, m.s.Content)
}

// TextHash is the sha256 of a text, hex encoded; the indexer skips re-embedding when
// the hash of the index text has not changed.
func TextHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// MarkVectorSynced records a successful sync of this version.
func (m Memory) MarkVectorSynced(model string, modelVersion int, textHash string, at time.Time) Memory {
	m.s.Vector = VectorState{Status: VectorSynced, SyncedAt: at, Model: model, Version: modelVersion, TextHash: textHash}
	return m
}

// MarkVectorFailed records a failed sync; the indexer retries it later.
func (m Memory) MarkVectorFailed(reason string, at time.Time) Memory {
	m.s.Vector.Status = VectorFailed
	m.s.Vector.Error = reason
	return m
}

// MarkVectorDirty asks for a re-sync (reindex after a model change).
func (m Memory) MarkVectorDirty() Memory {
	m.s.Vector.Status = VectorDirty
	return m
}

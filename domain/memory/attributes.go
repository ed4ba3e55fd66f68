package memory

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"engram/domain/invalid"
)

// MaxMetadataBytes bounds a memory's (or a message's) metadata: the JSON object
// as stored, in bytes. Metadata is the client's own tags, not a document store.
const MaxMetadataBytes = 16 * 1024

// Attributes say what else a memory is about beside its user: the agent, the app
// and the run (a conversation or task) that named it, and the client's own
// metadata. Every id is optional; a memory extracted from messages carries every
// id the messages named, so a filter on any combination of them finds it. The
// value is comparable: two attributes are equal when every field is.
type Attributes struct {
	AgentID  string
	AppID    string
	RunID    string
	Metadata Metadata
}

// AttributesInput is attributes as a client sends them: empty ids are absent,
// Metadata is the raw JSON (nil or "null": none).
type AttributesInput struct {
	AgentID  string
	AppID    string
	RunID    string
	Metadata []byte
}

// ParseAttributes validates a client's attributes: each id present is 1–128
// printable characters, metadata is a JSON object of at most MaxMetadataBytes.
func ParseAttributes(in AttributesInput) (Attributes, error) {
	var errs []error
	for _, id := range []struct{ field, value string }{
		{"agent_id", in.AgentID}, {"app_id", in.AppID}, {"run_id", in.RunID},
	} {
		if id.value != "" {
			errs = append(errs, ValidateUserID(id.field, id.value))
		}
	}
	md, err := ParseMetadata("metadata", in.Metadata)
	errs = append(errs, err)
	if err := invalid.Join(errs...); err != nil {
		return Attributes{}, err
	}
	return Attributes{AgentID: in.AgentID, AppID: in.AppID, RunID: in.RunID, Metadata: md}, nil
}

// IsZero reports whether no id and no metadata is set.
func (a Attributes) IsZero() bool { return a == Attributes{} }

// Over is a with every field that other sets taken from other: what a memory
// says after a writer named some of its attributes again (an id or metadata left
// out keeps the memory's own).
func (a Attributes) Over(other Attributes) Attributes {
	if other.AgentID != "" {
		a.AgentID = other.AgentID
	}
	if other.AppID != "" {
		a.AppID = other.AppID
	}
	if other.RunID != "" {
		a.RunID = other.RunID
	}
	if !other.Metadata.IsZero() {
		a.Metadata = other.Metadata
	}
	return a
}

// Metadata is a JSON object a client attached, kept as compact JSON text with its
// keys sorted, so equal objects are equal values. The zero value is no metadata;
// an empty object is kept as "{}" and is not zero.
type Metadata struct {
	text string
}

// ParseMetadata validates raw JSON as metadata: nil, empty or null is none; any
// other value must be a JSON object of at most MaxMetadataBytes once compacted.
func ParseMetadata(field string, raw []byte) (Metadata, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return Metadata{}, nil
	}
	if len(raw) > 4*MaxMetadataBytes { // refuse a huge body before decoding it
		return Metadata{}, invalid.Field(field, "must be at most %d bytes of JSON, got %d", MaxMetadataBytes, len(raw))
	}
	if !utf8.Valid(raw) {
		return Metadata{}, invalid.Field(field, "must be valid UTF-8 JSON")
	}
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // keep numbers as written: 12345678901234567890 must not become a float
	if raw[0] != '{' || dec.Decode(&obj) != nil || dec.More() {
		return Metadata{}, invalid.Field(field, "must be a JSON object, like {\"topic\": \"travel\"}")
	}
	text, err := json.Marshal(obj) // map keys come out sorted
	if err != nil {
		return Metadata{}, invalid.Field(field, "must be a JSON object: %v", err)
	}
	if len(text) > MaxMetadataBytes {
		return Metadata{}, invalid.Field(field, "must be at most %d bytes of JSON, got %d", MaxMetadataBytes, len(text))
	}
	return Metadata{text: string(text)}, nil
}

// RestoreMetadata rebuilds metadata stored as JSON text ("" for none) without
// validating it again.
func RestoreMetadata(text string) Metadata { return Metadata{text: text} }

// IsZero reports whether there is no metadata.
func (m Metadata) IsZero() bool { return m.text == "" }

// JSON is the object as compact JSON text, "" when there is none.
func (m Metadata) JSON() string { return m.text }

// Values decodes the object (numbers as json.Number); nil when there is none.
func (m Metadata) Values() map[string]any {
	if m.text == "" {
		return nil
	}
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader([]byte(m.text)))
	dec.UseNumber()
	if dec.Decode(&obj) != nil {
		return nil
	}
	return obj
}

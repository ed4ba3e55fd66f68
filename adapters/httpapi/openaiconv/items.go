package openaiconv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	appconv "engram/app/agentconv"
	"engram/domain/agentconv"
	"engram/domain/memory"
)

// field is one top-level member of a JSON object, its value as sent.
type field struct {
	key   string
	value json.RawMessage
}

// fieldsOf reads the top-level members of a JSON object in order, each value's
// bytes untouched.
func fieldsOf(raw []byte) ([]field, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("must be a JSON object")
	}
	var out []field
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		out = append(out, field{key: key, value: value})
	}
	return out, nil
}

func lookup(fields []field, key string) (json.RawMessage, bool) {
	for _, f := range fields {
		if f.key == key {
			return f.value, true
		}
	}
	return nil, false
}

func stringField(fields []field, key string) (string, bool) {
	v, ok := lookup(fields, key)
	var s string
	if !ok || json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

var messageRoles = map[string]agentconv.Role{
	"user": agentconv.RoleUser, "assistant": agentconv.RoleAssistant, "system": agentconv.RoleSystem, "developer": agentconv.RoleDeveloper,
}

// textPartTypes are the content parts whose text is what a message says.
var textPartTypes = map[string]bool{"input_text": true, "output_text": true, "text": true}

// parseItem reads what engram needs of an item (type, role, text, the client's
// id) and keeps its bytes. A message may come in the API's short form: no type,
// and content as a string. The first rule the item breaks is reported.
func parseItem(param string, raw json.RawMessage) (appconv.NewItem, *failure) {
	fields, f := itemFields(param, raw)
	if f != nil {
		return appconv.NewItem{}, f
	}
	item := appconv.NewItem{Raw: raw}
	role, hasRole := stringField(fields, "role")
	if item.Type, f = itemType(param, fields, hasRole); f != nil {
		return item, f
	}
	if item.ID, f = itemID(param, fields); f != nil {
		return item, f
	}
	if item.Type != "message" {
		return item, nil
	}
	if item.Role, f = messageRole(param, role); f != nil {
		return item, f
	}
	text, ok := messageText(fields)
	if !ok {
		return item, refuse(param+".content", param+".content must be a string or an array of content parts")
	}
	// The text is what the session records, and no store keeps a NUL.
	item.Text = strings.ReplaceAll(text, "\x00", "")
	return item, nil
}

func refuse(param, message string) *failure {
	f := badRequest(param, message)
	return &f
}

// itemFields reads the members of an item, which must be a JSON object in UTF-8.
func itemFields(param string, raw json.RawMessage) ([]field, *failure) {
	if !utf8.Valid(raw) {
		return nil, refuse(param, param+" must be valid UTF-8")
	}
	fields, err := fieldsOf(raw)
	if err != nil {
		return nil, refuse(param, param+" must be a JSON object (an item: a message, a function_call, a function_call_output…)")
	}
	return fields, nil
}

// itemType is the item's type; an item without one is a message if it has a role.
func itemType(param string, fields []field, hasRole bool) (string, *failure) {
	t, hasType := stringField(fields, "type")
	switch {
	case hasType && (t == "" || utf8.RuneCountInString(t) > 64 || memory.ValidatePrintable("type", t) != nil):
		return "", refuse(param+".type", param+".type must be 1 to 64 printable characters")
	case !hasType && !hasRole:
		return "", refuse(param+".type", param+" needs a type (message, function_call, function_call_output, reasoning…) or, for a message, a role")
	case !hasType:
		return "message", nil
	}
	return t, nil
}

// itemID is the client's id of the item, "" when it leaves engram to give one.
func itemID(param string, fields []field) (string, *failure) {
	raw, ok := lookup(fields, "id")
	if !ok || string(raw) == "null" {
		return "", nil
	}
	var id string
	if err := json.Unmarshal(raw, &id); err != nil || id == "" {
		return "", refuse(param+".id", param+".id must be a non-empty string when set; leave it out and engram gives the item one")
	}
	return id, nil
}

func messageRole(param, role string) (agentconv.Role, *failure) {
	r, ok := messageRoles[role]
	if !ok {
		return "", refuse(param+".role", param+".role must be user, assistant, system or developer, got "+strconv.Quote(role))
	}
	return r, nil
}

// messageText is the text of a message's content: the string, or its text parts
// joined by blank lines (images, files and audio say nothing a session keeps).
func messageText(fields []field) (string, bool) {
	content, ok := lookup(fields, "content")
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s, true
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(content, &parts) != nil {
		return "", false
	}
	var texts []string
	for _, p := range parts {
		if textPartTypes[p.Type] && p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n\n"), true
}

// render is an item as the API serves it: the bytes the client sent, with the id
// engram gave it first. A message sent in the short form is served in the API's
// full form, as OpenAI serves it and its clients read it: "type":"message", and
// string content as one text part (input_text, output_text for the assistant).
func render(it agentconv.Item) json.RawMessage {
	fields, err := fieldsOf(it.Raw)
	if err != nil {
		return it.Raw // validated when added: cannot happen
	}
	_, hasID := lookup(fields, "id")
	_, hasType := lookup(fields, "type")
	var textContent *string
	if it.Type == "message" {
		if content, ok := lookup(fields, "content"); ok {
			var s string
			if json.Unmarshal(content, &s) == nil {
				textContent = &s
			}
		}
	}
	var b bytes.Buffer
	b.WriteByte('{')
	if !hasID {
		b.WriteString(`"id":`)
		b.Write(quote(it.ID))
		b.WriteByte(',')
	}
	if !hasType {
		b.WriteString(`"type":"message",`)
	}
	if textContent == nil {
		// Every member as sent: an item has at least a type or a role, so a
		// member follows the comma.
		b.Write(bytes.TrimSpace(it.Raw)[1:])
		return b.Bytes()
	}
	partType := "input_text"
	if it.Role == agentconv.RoleAssistant {
		partType = "output_text"
	}
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(quote(f.key))
		b.WriteByte(':')
		if f.key == "content" {
			b.Write(textParts(partType, *textContent))
			continue
		}
		b.Write(f.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// textPart is a content part of text, in the API's order of members; an
// output_text part has its (empty) annotations.
type textPart struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Annotations *[]any `json:"annotations,omitempty"`
}

func textParts(partType, text string) []byte {
	part := textPart{Type: partType, Text: text}
	if partType == "output_text" {
		part.Annotations = &[]any{}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode([]textPart{part})
	return bytes.TrimSpace(b.Bytes())
}

func quote(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

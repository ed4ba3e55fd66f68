package openaiconv

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	appconv "engram/app/agentconv"
	"engram/domain/agentconv"
)

// parseItem is where a client learns what to fix in an item: each rule names the
// member (param) and says what it must be; a good item gives its type, id, role
// and text.
func TestParseItem_namesWhatToFix(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		raw     string
		want    appconv.NewItem // Raw aside
		param   string          // "" when the item is accepted
		message string
	}{
		{"short-form message", `{"role":"user","content":"hi\u0000 there"}`,
			appconv.NewItem{Type: "message", Role: agentconv.RoleUser, Text: "hi there"}, "", ""},
		{"message with parts and an id", `{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"a"},{"type":"input_image","image_url":"x"},{"type":"text","text":"b"}]}`,
			appconv.NewItem{ID: "msg_1", Type: "message", Role: agentconv.RoleAssistant, Text: "a\n\nb"}, "", ""},
		{"another type needs no role", `{"type":"function_call","id":null,"name":"f"}`,
			appconv.NewItem{Type: "function_call"}, "", ""},
		{"invalid UTF-8", "{\"role\":\"user\",\"content\":\"\xff\"}", appconv.NewItem{}, "input[0]", "input[0] must be valid UTF-8"},
		{"not an object", `["a"]`, appconv.NewItem{}, "input[0]", "input[0] must be a JSON object (an item: a message, a function_call, a function_call_output…)"},
		{"empty type", `{"type":""}`, appconv.NewItem{}, "input[0].type", "input[0].type must be 1 to 64 printable characters"},
		{"type with a control character", `{"type":"a\u0001"}`, appconv.NewItem{}, "input[0].type", "input[0].type must be 1 to 64 printable characters"},
		{"type too long", `{"type":"` + strings.Repeat("x", 65) + `"}`, appconv.NewItem{}, "input[0].type", "input[0].type must be 1 to 64 printable characters"},
		{"neither type nor role", `{"content":"hi"}`, appconv.NewItem{}, "input[0].type", "input[0] needs a type (message, function_call, function_call_output, reasoning…) or, for a message, a role"},
		{"empty id", `{"type":"reasoning","id":""}`, appconv.NewItem{Type: "reasoning"}, "input[0].id", "input[0].id must be a non-empty string when set; leave it out and engram gives the item one"},
		{"id not a string", `{"type":"reasoning","id":7}`, appconv.NewItem{Type: "reasoning"}, "input[0].id", "input[0].id must be a non-empty string when set; leave it out and engram gives the item one"},
		{"unknown role", `{"type":"message","role":"tool","content":"x"}`, appconv.NewItem{Type: "message"}, "input[0].role", `input[0].role must be user, assistant, system or developer, got "tool"`},
		{"content missing", `{"role":"system"}`, appconv.NewItem{Type: "message", Role: agentconv.RoleSystem}, "input[0].content", "input[0].content must be a string or an array of content parts"},
		{"content a number", `{"role":"developer","content":3}`, appconv.NewItem{Type: "message", Role: agentconv.RoleDeveloper}, "input[0].content", "input[0].content must be a string or an array of content parts"},
	} {
		got, f := parseItem("input[0]", json.RawMessage(tc.raw))
		switch {
		case tc.param == "" && f != nil:
			t.Errorf("%s: refused: %+v", tc.name, *f)
		case tc.param != "" && (f == nil || f.param != tc.param || f.message != tc.message || f.status != 400):
			t.Errorf("%s: failure %+v, want %s: %s", tc.name, f, tc.param, tc.message)
		}
		got.Raw = nil
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: item %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

package agentconv

import (
	"slices"
	"testing"
)

func msg(id string, role Role, text string) Item {
	return Item{ID: id, Type: "message", Role: role, Text: text}
}

func TestExchanges(t *testing.T) {
	t.Parallel()
	call := Item{ID: "fc_1", Type: "function_call"}
	output := Item{ID: "fco_1", Type: "function_call_output"}
	tests := []struct {
		name  string
		items []Item
		want  []Exchange
	}{
		{"a user message and its answer", []Item{msg("m1", RoleUser, "hi"), msg("m2", RoleAssistant, "hello")},
			[]Exchange{{ID: "m1", User: "hi", Assistant: "hello"}}},
		{"no answer yet", []Item{msg("m1", RoleUser, "hi")}, nil},
		{"tool calls between question and answer", []Item{msg("m1", RoleUser, "weather?"), msg("m2", RoleAssistant, "checking"),
			call, output, msg("m3", RoleAssistant, "sunny")},
			[]Exchange{{ID: "m1", User: "weather?", Assistant: "checking\n\nsunny"}}},
		{"two user messages make one turn", []Item{msg("m1", RoleUser, "a"), msg("m2", RoleUser, "b"), msg("m3", RoleAssistant, "c")},
			[]Exchange{{ID: "m1", User: "a\n\nb", Assistant: "c"}}},
		{"system and developer messages say nothing of the turn", []Item{msg("s", RoleSystem, "be brief"), msg("m1", RoleUser, "q"),
			msg("d", RoleDeveloper, "cite"), msg("m2", RoleAssistant, "a")},
			[]Exchange{{ID: "m1", User: "q", Assistant: "a"}}},
		{"an assistant message before any user message is no turn", []Item{msg("m0", RoleAssistant, "welcome"),
			msg("m1", RoleUser, "q"), msg("m2", RoleAssistant, "a")}, []Exchange{{ID: "m1", User: "q", Assistant: "a"}}},
		{"a question answered only by a tool call is no turn", []Item{msg("m1", RoleUser, "q"), call, msg("m2", RoleUser, "q2"),
			msg("m3", RoleAssistant, "a2")}, []Exchange{{ID: "m2", User: "q2", Assistant: "a2"}}},
		{"two turns", []Item{msg("m1", RoleUser, "q1"), msg("m2", RoleAssistant, "a1"), msg("m3", RoleUser, "q2"), msg("m4", RoleAssistant, "a2")},
			[]Exchange{{ID: "m1", User: "q1", Assistant: "a1"}, {ID: "m3", User: "q2", Assistant: "a2"}}},
		{"empty text is no text", []Item{msg("m1", RoleUser, "  "), msg("m2", RoleAssistant, "a")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for i, x := range tt.want {
				tt.want[i].ID = exchangeID(x.ID, x.User, x.Assistant)
			}
			if got := Exchanges(tt.items); !slices.Equal(got, tt.want) {
				t.Errorf("Exchanges = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestExchanges_aTurnWhoseAnswerGrewIsAnotherExchange(t *testing.T) {
	t.Parallel()
	first := Exchanges([]Item{msg("m1", RoleUser, "q"), msg("m2", RoleAssistant, "a")})
	grown := Exchanges([]Item{msg("m1", RoleUser, "q"), msg("m2", RoleAssistant, "a"), msg("m3", RoleAssistant, "b")})
	again := Exchanges([]Item{msg("m1", RoleUser, "q"), msg("m2", RoleAssistant, "a")})
	if first[0].ID == grown[0].ID || first[0].ID != again[0].ID {
		t.Errorf("ids: first %s, grown %s, again %s", first[0].ID, grown[0].ID, again[0].ID)
	}
}

func TestChanged(t *testing.T) {
	t.Parallel()
	a, b := Exchange{ID: "1", User: "u", Assistant: "a"}, Exchange{ID: "2", User: "u", Assistant: "a"}
	longer := Exchange{ID: "1", User: "u", Assistant: "a\n\nmore"}
	tests := []struct {
		name          string
		before, after []Exchange
		want          bool
	}{
		{"a turn added at the end", []Exchange{a}, []Exchange{a, b}, false},
		{"nothing recorded before", nil, []Exchange{a}, false},
		{"a recorded turn got more answer", []Exchange{a}, []Exchange{longer}, true},
		{"a turn removed", []Exchange{a, b}, []Exchange{b}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Changed(tt.before, tt.after); got != tt.want {
				t.Errorf("Changed = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNewItemID_prefixByType(t *testing.T) {
	t.Parallel()
	for typ, want := range map[string]string{"message": "msg_01ab", "function_call": "fc_01ab", "function_call_output": "fco_01ab",
		"reasoning": "rs_01ab", "mcp_call": "item_01ab"} {
		if got := NewItemID(typ, "01AB"); got != want {
			t.Errorf("NewItemID(%q) = %q, want %q", typ, got, want)
		}
	}
}

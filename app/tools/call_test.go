package tools_test

import (
	"errors"
	"strings"
	"testing"

	"engram/app/tools"
	"engram/domain/invalid"
	"engram/domain/memory"
)

func TestCallScope_fixedUserElseArgument(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		call        tools.Call
		userID      string
		wantUser    string
		wantProblem string // of the user_id field, when the call has no valid user
	}{
		{"the transport's user", tools.Call{User: "alice"}, "", "alice", ""},
		{"the transport's user repeated in the arguments", tools.Call{User: "alice"}, "alice", "alice", ""},
		{"another user than the pinned one", tools.Call{User: "alice"}, "bob", "", "names another user: this connection acts for user alice only"},
		{"the argument", tools.Call{}, "bob", "bob", ""},
		{"no user at all", tools.Call{}, "", "", "is required"},
		{"an argument of spaces", tools.Call{}, "   ", "", "must not be only spaces"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.call.Tenant = "acme"
			sc, err := c.call.Scope(c.userID)
			if c.wantProblem == "" {
				if err != nil || sc != (memory.Scope{Tenant: "acme", User: c.wantUser}) {
					t.Fatalf("scope %+v, %v; want user %s of acme", sc, err, c.wantUser)
				}
				return
			}
			var ve *invalid.Error
			if !errors.As(err, &ve) || ve.Fields[0].Field != tools.UserArgument || !strings.Contains(ve.Fields[0].Problem, c.wantProblem) {
				t.Fatalf("error %v; want user_id %q", err, c.wantProblem)
			}
		})
	}
}

func TestTakesUserArgument_onlyWhenTheTransportFixedNoUser(t *testing.T) {
	t.Parallel()
	if (tools.Call{User: "alice"}).TakesUserArgument() || !(tools.Call{}).TakesUserArgument() {
		t.Error("user_id is an argument exactly when the transport does not fix the user")
	}
}

func TestExplain_oneLinePerArgumentWithWhatWasSent(t *testing.T) {
	t.Parallel()
	err := &invalid.Error{Fields: []invalid.FieldError{
		{Field: "type", Problem: "must be one of preference, fact, goal, project, constraint", Value: "profile"},
		{Field: "content", Problem: "must be a string of 1 to 1000 characters", Value: strings.Repeat("x", 1200)},
		{Field: "importance", Problem: "must be a whole number from 1 to 5", Value: 7.0},
		{Field: "", Problem: "the arguments must be a JSON object"},
	}}
	want := "argument `type` must be one of preference, fact, goal, project, constraint; you sent `profile`\n" +
		"argument `content` must be a string of 1 to 1000 characters; you sent a text of 1200 characters\n" +
		"argument `importance` must be a whole number from 1 to 5; you sent `7`\n" +
		"the arguments must be a JSON object"
	if got := tools.Explain(err); got != want {
		t.Errorf("Explain =\n%s\nwant\n%s", got, want)
	}
}

func TestShown_clipsWhatItQuotes(t *testing.T) {
	t.Parallel()
	long := make([]any, 100)
	for i := range long {
		long[i] = i
	}
	for _, c := range []struct {
		v    any
		want string
	}{
		{"diet", "`diet`"},
		{nil, "null"},
		{true, "`true`"},
		{[]any{"a", 1.5}, "`[\"a\",1.5]`"},
	} {
		if got := tools.Shown(c.v); got != c.want {
			t.Errorf("Shown(%v) = %s, want %s", c.v, got, c.want)
		}
	}
	if got := tools.Shown(long); len([]rune(got)) > 85 || !strings.HasSuffix(got, "…`") {
		t.Errorf("a long list is quoted as %s", got)
	}
}

func TestGuidance_carriesSeed000sBoundaries(t *testing.T) {
	t.Parallel()
	for _, must := range []string{"30 days", "long-term goals", "from now on", "short-term reminders", "to-dos",
		"tonight", "tomorrow", "this week", "weather", "tools", "system state", "secrets", "nickname", "assistant's name", "emoji"} {
		if !strings.Contains(tools.WhatToSave, must) {
			t.Errorf("WhatToSave does not mention %q", must)
		}
	}
	for _, tool := range []string{"memory_save", "memory_append", "memory_delete", "memory_list", "memory_search", "memory_context", tools.WhatToSave} {
		if !strings.Contains(tools.Instructions, tool) {
			t.Errorf("the MCP instructions do not carry %.40q", tool)
		}
	}
}

package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"engram/domain/invalid"
	"engram/domain/memory"
)

// Definition is what a model is told about one tool.
type Definition struct {
	Name        string
	Description string
	// Parameters is the JSON Schema (an object) of the tool's arguments.
	Parameters json.RawMessage
	// ReadOnly tools change nothing; Destructive ones remove what the user had.
	ReadOnly, Destructive bool
}

// UserArgument is the argument that names the user when the transport does not.
const UserArgument = "user_id"

// Call is one tool call as a transport received it.
type Call struct {
	Tenant string // from authentication
	Name   string
	// Arguments is a JSON object, or a JSON string holding one (what OpenAI's tool
	// calls carry); empty or null means no arguments.
	Arguments []byte
	// User is the user the transport fixed: the path of POST
	// /v1/users/{user}/tools/{name}, or the user an MCP connection is pinned to
	// (X-Engram-User, `engram mcp --user`, a user-scoped key). A user_id argument
	// naming another user is then refused (PinnedUser). Empty: the user_id argument
	// names the user.
	User string
}

// TakesUserArgument reports whether the arguments name the user.
func (c Call) TakesUserArgument() bool { return c.User == "" }

// PinnedUser checks a user_id argument of a call whose transport fixed the user:
// it may only repeat that user.
func (c Call) PinnedUser(userID string) error {
	if userID == "" || userID == c.User {
		return nil
	}
	return invalid.FieldValue(UserArgument, userID,
		"names another user: this connection acts for user %s only and cannot read or write anyone else's memories; leave user_id out", c.User)
}

// Scope is whose memories the call acts on: the transport's user, else the user_id
// argument (userID, "" when absent).
func (c Call) Scope(userID string) (memory.Scope, error) {
	switch {
	case c.User != "":
		if err := c.PinnedUser(userID); err != nil {
			return memory.Scope{}, err
		}
		return memory.ParseScope(c.Tenant, c.User)
	case userID != "":
		if err := memory.ValidateUserID(UserArgument, userID); err != nil {
			return memory.Scope{}, err
		}
		return memory.Scope{Tenant: c.Tenant, User: userID}, nil
	}
	return memory.Scope{}, invalid.Field(UserArgument,
		"is required: name the user whose memories these are (this connection is not pinned to a user)")
}

// Explain words argument errors for the model that made the call, one line per
// argument: "argument `type` must be one of …; you sent `profile`". A field named
// "" is about the arguments as a whole.
func Explain(err *invalid.Error) string {
	lines := make([]string, 0, len(err.Fields))
	for _, f := range err.Fields {
		line := f.Problem
		if f.Field != "" {
			line = "argument `" + f.Field + "` " + f.Problem
		}
		if f.Value != nil {
			line += "; you sent " + Shown(f.Value)
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// maxShown bounds how much of a value an explanation quotes.
const maxShown = 80

// Shown is a value as an explanation quotes it: short text and numbers in
// backticks, long text by its length, anything else as clipped JSON.
func Shown(v any) string {
	switch t := v.(type) {
	case string:
		if n := utf8.RuneCountInString(t); n > maxShown {
			return fmt.Sprintf("a text of %d characters", n)
		}
		return "`" + t + "`"
	case nil:
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("`%v`", v)
	}
	s := string(b)
	if utf8.RuneCountInString(s) > maxShown {
		s = string([]rune(s)[:maxShown]) + "…"
	}
	return "`" + s + "`"
}

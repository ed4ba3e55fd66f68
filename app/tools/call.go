package tools

import (
	"encoding/json"
	"errors"
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
	// User is the user the transport fixed (POST /v1/users/{user}/tools/{name});
	// the arguments then cannot name one. Empty: the user_id argument names the
	// user, else DefaultUser does.
	User string
	// DefaultUser is the connection's user (MCP: the X-Engram-User header, or
	// `engram mcp --user`), used when the arguments name none.
	DefaultUser string
}

// TakesUserArgument reports whether the arguments may carry user_id.
func (c Call) TakesUserArgument() bool { return c.User == "" }

// Scope is whose memories the call acts on: the transport's user, else the user_id
// argument (userID, "" when absent), else the connection's default user.
func (c Call) Scope(userID string) (memory.Scope, error) {
	switch {
	case c.User != "":
		return memory.ParseScope(c.Tenant, c.User)
	case userID != "":
		if err := memory.ValidateUserID(UserArgument, userID); err != nil {
			return memory.Scope{}, err
		}
		return memory.Scope{Tenant: c.Tenant, User: userID}, nil
	case c.DefaultUser != "":
		if err := memory.ValidateUserID(UserArgument, c.DefaultUser); err != nil {
			var ve *invalid.Error
			if errors.As(err, &ve) {
				return memory.Scope{}, invalid.Field(UserArgument,
					"was not sent, and the connection's default user is not a valid user id (it %s); send user_id", ve.Fields[0].Problem)
			}
			return memory.Scope{}, err
		}
		return memory.Scope{Tenant: c.Tenant, User: c.DefaultUser}, nil
	}
	return memory.Scope{}, invalid.Field(UserArgument,
		"is required: name the user whose memories these are (this connection has no default user)")
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

package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"engram/app/tools"
	"engram/domain/invalid"
)

// parseArguments turns a call's arguments into the tool's Go value. They must be a
// JSON object (or a JSON string holding one); no string in them may hold NUL or
// invalid UTF-8 (the edge's hygiene does not see inside a JSON string, and MCP
// does not pass the edge's body checks at all); no name may repeat or differ from
// the tool's only in case, no number overflow (strict.go); every argument must be known, the
// required ones present, and each valid against the schema, checked by huma's
// validator, the one the HTTP operations use. A null counts as an absent argument:
// models send them for optional arguments they do not use. user_id is returned on
// its own.
func (tb *Toolbox) parseArguments(b *boxedTool, c tools.Call) (arguments any, userID string, err error) {
	raw, err := argumentsObject(c.Arguments)
	if err != nil {
		return nil, "", err
	}
	if p := strictJSON(raw, tb.registry, b.schema); p != nil {
		return nil, "", invalid.FieldValue(strings.TrimPrefix(strings.TrimPrefix(p.detail.Location, "body"), "."), p.detail.Value, "%s", p.detail.Message)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, "", wholeArguments("the arguments are not valid JSON (%v); send a JSON object such as {\"key\": \"diet\"}", err)
	}
	for name, v := range m {
		if v == nil {
			delete(m, name)
		}
	}
	// user_id is taken out even when the transport fixed the user, so that Scope
	// can tell a call that names another user what is wrong with it.
	if userID, err = takeUserID(m); err != nil {
		return nil, "", err
	}
	if err := b.validate(tb.registry, m); err != nil {
		return nil, "", err
	}
	valid, err := json.Marshal(m)
	if err != nil {
		return nil, "", err
	}
	v := reflect.New(b.arguments)
	if err := json.Unmarshal(valid, v.Interface()); err != nil {
		return nil, "", wholeArguments("the arguments do not fit %s (%v)", b.name, err)
	}
	return v.Interface(), userID, nil
}

// argumentsObject unwraps arguments sent as a JSON string and checks their text,
// before and after: a JSON string decoder would turn invalid UTF-8 and escaped
// lone surrogates into U+FFFD without a word.
func argumentsObject(raw []byte) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if err := checkText(raw); err != nil {
		return nil, err
	}
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, wholeArguments("the arguments are not a valid JSON string (%v)", err)
		}
		raw = bytes.TrimSpace([]byte(s))
		if err := checkText(raw); err != nil {
			return nil, err
		}
	}
	if len(raw) == 0 || string(raw) == "null" {
		return []byte("{}"), nil
	}
	if raw[0] != '{' {
		return nil, wholeArguments("the arguments must be a JSON object of named arguments, such as {\"key\": \"diet\"}; you sent %s", tools.Shown(string(raw)))
	}
	return raw, nil
}

// checkText is hygiene's check of every string in a JSON document, worded for the
// model; it never echoes the offending value.
func checkText(doc []byte) error {
	d := badJSONText(doc)
	if d == nil {
		return nil
	}
	name := strings.TrimPrefix(strings.TrimPrefix(d.Location, "body"), ".")
	if name == "" {
		return wholeArguments("the arguments %s", d.Message)
	}
	return invalid.Field(name, "%s", d.Message)
}

func wholeArguments(format string, args ...any) error {
	return invalid.Field("", format, args...)
}

func takeUserID(m map[string]any) (string, error) {
	v, ok := m[tools.UserArgument]
	if !ok {
		return "", nil
	}
	delete(m, tools.UserArgument)
	s, isString := v.(string)
	if !isString {
		return "", invalid.FieldValue(tools.UserArgument, v, "must be a string: the id of the user whose memories these are")
	}
	return s, nil
}

// validate reports every argument that must change, one error each, in the order
// of the tool's arguments.
func (b *boxedTool) validate(registry huma.Registry, m map[string]any) error {
	var errs []invalid.FieldError
	reported := map[string]bool{}
	for name := range m {
		if !slices.Contains(b.argumentNames, name) {
			errs = append(errs, invalid.FieldError{Field: name,
				Problem: "is unknown: " + b.name + " takes " + strings.Join(b.argumentNames, ", ")})
			reported[name] = true
		}
	}
	for _, name := range b.schema.Required {
		if _, ok := m[name]; !ok {
			errs = append(errs, invalid.FieldError{Field: name, Problem: "is required: " + allowed(b.schema.Properties[name])})
			reported[name] = true
		}
	}
	res := &huma.ValidateResult{}
	huma.Validate(registry, b.schema, huma.NewPathBuffer([]byte{}, 0), huma.ModeWriteToServer, m, res)
	for _, e := range res.Errors {
		var d *huma.ErrorDetail
		if !errors.As(e, &d) {
			continue
		}
		name := topArgument(d.Location)
		if name == "" || reported[name] {
			continue // about the object: the required and unknown arguments above
		}
		reported[name] = true
		errs = append(errs, invalid.FieldError{Field: name, Problem: "must be " + allowed(b.schema.Properties[name]), Value: m[name]})
	}
	if len(errs) == 0 {
		return nil
	}
	slices.SortFunc(errs, func(x, y invalid.FieldError) int { return b.order(x.Field) - b.order(y.Field) })
	return &invalid.Error{Fields: errs}
}

// order ranks an argument by its place in the tool's arguments; unknown ones last.
func (b *boxedTool) order(name string) int {
	if i := slices.Index(b.argumentNames, name); i >= 0 {
		return i
	}
	return len(b.argumentNames)
}

// topArgument is the argument a validation location is in: types[2] is in types.
func topArgument(location string) string {
	if i := strings.IndexAny(location, ".["); i >= 0 {
		return location[:i]
	}
	return location
}

// allowed says what an argument's schema accepts, in words a model can act on:
// "one of preference, fact…", "a string of 1 to 1000 characters", "a whole number
// from 1 to 5".
func allowed(s *huma.Schema) string {
	switch {
	case s == nil:
		return "a valid value"
	case len(s.Enum) > 0:
		parts := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			parts[i] = fmt.Sprint(v)
		}
		return "one of " + strings.Join(parts, ", ")
	}
	switch s.Type {
	case huma.TypeString:
		if s.Format == "date-time" {
			return "an RFC 3339 time such as 2026-03-01T09:00:00Z"
		}
		return "a string" + bounds(" of", intBound(s.MinLength), intBound(s.MaxLength), " characters")
	case huma.TypeInteger:
		return "a whole number" + bounds("", floatBound(s.Minimum), floatBound(s.Maximum), "")
	case huma.TypeNumber:
		return "a number" + bounds("", floatBound(s.Minimum), floatBound(s.Maximum), "")
	case huma.TypeBoolean:
		return "true or false"
	case huma.TypeArray:
		out := "a list" + bounds(" of", intBound(s.MinItems), intBound(s.MaxItems), " items")
		if s.Items != nil {
			out += ", each " + allowed(s.Items)
		}
		return out
	case huma.TypeObject:
		return "a JSON object"
	}
	return "a valid value"
}

// bounds words a range: " of 1 to 1000 characters", " from 1 to 5", " of at most 200 characters".
func bounds(of, lo, hi, unit string) string {
	switch {
	case lo != "" && hi != "":
		if of == "" {
			return " from " + lo + " to " + hi + unit
		}
		return of + " " + lo + " to " + hi + unit
	case hi != "":
		return " of at most " + hi + unit
	case lo != "":
		return " of at least " + lo + unit
	}
	return ""
}

func intBound(p *int) string {
	if p == nil {
		return ""
	}
	return strconv.Itoa(*p)
}

func floatBound(p *float64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatFloat(*p, 'g', -1, 64)
}

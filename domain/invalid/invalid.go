// Package invalid carries validation failures out of the domain without the domain
// knowing how they are reported. A failure names the field the caller sent and says
// what to change; the HTTP adapter turns it into a 422 problem.
//
// It imports only the standard library, like every package under domain/.
package invalid

import (
	"errors"
	"fmt"
	"strings"
)

// Error lists the fields that failed validation. It is returned as a value so that
// several problems can be reported at once.
type Error struct {
	Fields []FieldError
}

// FieldError is one field that must change before the request can succeed.
type FieldError struct {
	Field   string // the name the client used, e.g. "content" or "ttl_days"
	Problem string // what is wrong and what is allowed
	Value   any    // the offending value when it is short enough to echo back
}

func (e *Error) Error() string {
	parts := make([]string, 0, len(e.Fields))
	for _, f := range e.Fields {
		parts = append(parts, f.Field+": "+f.Problem)
	}
	return "invalid " + strings.Join(parts, "; ")
}

// Field builds a one-field Error.
func Field(field, format string, args ...any) *Error {
	return &Error{Fields: []FieldError{{Field: field, Problem: fmt.Sprintf(format, args...)}}}
}

// FieldValue is Field with the offending value attached.
func FieldValue(field string, value any, format string, args ...any) *Error {
	e := Field(field, format, args...)
	e.Fields[0].Value = value
	return e
}

// Join merges the non-nil validation errors into one, or returns nil.
func Join(errs ...error) error {
	var out Error
	for _, err := range errs {
		if err == nil {
			continue
		}
		var ve *Error
		if errors.As(err, &ve) {
			out.Fields = append(out.Fields, ve.Fields...)
			continue
		}
		return err // not a validation error: report it as it is
	}
	if len(out.Fields) == 0 {
		return nil
	}
	return &out
}

// Prefix returns err with every field name prefixed, for nested objects
// ("messages[3].content"). Other errors pass through unchanged.
func Prefix(prefix string, err error) error {
	var ve *Error
	if !errors.As(err, &ve) {
		return err
	}
	out := &Error{Fields: make([]FieldError, len(ve.Fields))}
	for i, f := range ve.Fields {
		f.Field = prefix + "." + f.Field
		out.Fields[i] = f
	}
	return out
}

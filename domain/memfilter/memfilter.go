// Package memfilter is a filter over memories as a tree of conditions joined by
// AND, OR and NOT: which memories a listing, a search or a bulk change applies
// to. It says what matches; reading it from a client's wire format is the
// edge's job, and a store may translate it to its own query. Pure Go.
package memfilter

import (
	"slices"
	"strings"
	"time"
)

// Field is what a condition looks at.
type Field string

const (
	UserID         Field = "user_id"
	AgentID        Field = "agent_id"
	AppID          Field = "app_id"
	RunID          Field = "run_id"
	CreatedAt      Field = "created_at"
	UpdatedAt      Field = "updated_at"
	ExpirationDate Field = "expiration_date"
	Categories     Field = "categories"
	Metadata       Field = "metadata" // one key of the metadata object (Condition.Key)
	Keywords       Field = "keywords" // the memory's text
	MemoryIDs      Field = "memory_ids"
)

// Op is how a condition compares.
type Op string

const (
	Eq       Op = "eq"
	Ne       Op = "ne"
	In       Op = "in"
	Any      Op = "*" // the field has a value
	Gt       Op = "gt"
	Gte      Op = "gte"
	Lt       Op = "lt"
	Lte      Op = "lte"
	Contains Op = "contains" // a category, a metadata value or the text holds the value (text: ignoring case)
)

// Subject is a memory as a filter sees it.
type Subject interface {
	MemoryID() string
	// Entity is the memory's user, agent, app or run id; "" when it has none.
	Entity(f Field) string
	// Time is when the memory was created, updated or expires; zero: never.
	Time(f Field) time.Time
	Categories() []string
	Metadata() map[string]any
	Text() string
}

type kind int

const (
	kindAll kind = iota // the zero filter matches everything
	kindAnd
	kindOr
	kindNot
	kindCond
)

// Filter is one node of the tree. The zero value matches every memory.
type Filter struct {
	kind     kind
	children []Filter
	cond     Condition
}

// Condition is a leaf: Field Op Values. Values hold strings for ids, categories,
// metadata and text, time.Time for dates.
type Condition struct {
	Field  Field
	Key    string // the metadata key (Field Metadata)
	Op     Op
	Values []any
}

// All matches every memory.
func All() Filter { return Filter{} }

// And matches what every one of fs matches.
func And(fs ...Filter) Filter { return join(kindAnd, fs) }

// Or matches what any one of fs matches.
func Or(fs ...Filter) Filter { return join(kindOr, fs) }

// Not matches what none of fs matches.
func Not(fs ...Filter) Filter { return Filter{kind: kindNot, children: fs} }

// Where is one condition.
func Where(c Condition) Filter { return Filter{kind: kindCond, cond: c} }

func join(k kind, fs []Filter) Filter {
	if len(fs) == 1 {
		return fs[0]
	}
	return Filter{kind: k, children: fs}
}

// Match reports whether the filter keeps s.
func (f Filter) Match(s Subject) bool {
	switch f.kind {
	case kindAnd:
		for _, c := range f.children {
			if !c.Match(s) {
				return false
			}
		}
		return true
	case kindOr:
		return slices.ContainsFunc(f.children, func(c Filter) bool { return c.Match(s) })
	case kindNot:
		return !slices.ContainsFunc(f.children, func(c Filter) bool { return c.Match(s) })
	case kindCond:
		return f.cond.match(s)
	}
	return true
}

func (c Condition) match(s Subject) bool {
	switch c.Field {
	case UserID, AgentID, AppID, RunID:
		return matchText(c.Op, s.Entity(c.Field), c.Values)
	case MemoryIDs:
		return matchText(c.Op, s.MemoryID(), c.Values)
	case CreatedAt, UpdatedAt, ExpirationDate:
		return matchTime(c.Op, s.Time(c.Field), c.Values)
	case Categories:
		return matchSet(c.Op, s.Categories(), c.Values)
	case Metadata:
		v, ok := s.Metadata()[c.Key]
		return matchMetadata(c.Op, v, ok, c.Values)
	case Keywords:
		return c.Op == Contains && len(c.Values) > 0 && strings.Contains(strings.ToLower(s.Text()), strings.ToLower(str(c.Values[0])))
	}
	return false
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// matchText compares an id: an empty id has no value, so only ne and a missing
// value's negation keep it.
func matchText(op Op, have string, values []any) bool {
	switch op {
	case Eq:
		return have != "" && len(values) > 0 && have == str(values[0])
	case Ne:
		return len(values) > 0 && have != str(values[0])
	case In:
		return have != "" && slices.ContainsFunc(values, func(v any) bool { return str(v) == have })
	case Any:
		return have != ""
	}
	return false
}

func matchTime(op Op, have time.Time, values []any) bool {
	if op == Any {
		return !have.IsZero()
	}
	if have.IsZero() || len(values) == 0 {
		return op == Ne
	}
	if op == In {
		return slices.ContainsFunc(values, func(v any) bool { t, _ := v.(time.Time); return have.Equal(t) })
	}
	want, _ := values[0].(time.Time)
	switch op {
	case Eq:
		return have.Equal(want)
	case Ne:
		return !have.Equal(want)
	case Gt:
		return have.After(want)
	case Gte:
		return !have.Before(want)
	case Lt:
		return have.Before(want)
	case Lte:
		return !have.After(want)
	}
	return false
}

// matchSet: in keeps a memory with any of the values, contains one with the
// value, ne one without it.
func matchSet(op Op, have []string, values []any) bool {
	holds := func(v any) bool { return slices.Contains(have, str(v)) }
	switch op {
	case In:
		return slices.ContainsFunc(values, holds)
	case Contains, Eq:
		return len(values) > 0 && holds(values[0])
	case Ne:
		return len(values) > 0 && !holds(values[0])
	case Any:
		return len(have) > 0
	}
	return false
}

func matchMetadata(op Op, have any, present bool, values []any) bool {
	same := func(v any) bool { return present && equalJSON(have, v) }
	switch op {
	case Eq:
		return len(values) > 0 && same(values[0])
	case Ne:
		return len(values) > 0 && !same(values[0])
	case In:
		return slices.ContainsFunc(values, same)
	case Any:
		return present
	case Contains:
		return len(values) > 0 && present && containsJSON(have, values[0])
	}
	return false
}

// equalJSON compares two decoded JSON values; numbers compare as numbers.
func equalJSON(a, b any) bool {
	switch x := a.(type) {
	case string, bool, nil:
		return a == b
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	}
	return false
}

// containsJSON: a string holds the text (ignoring case), a list holds the value.
func containsJSON(have, want any) bool {
	switch h := have.(type) {
	case string:
		w, ok := want.(string)
		return ok && strings.Contains(strings.ToLower(h), strings.ToLower(w))
	case []any:
		return slices.ContainsFunc(h, func(v any) bool { return equalJSON(v, want) })
	}
	return false
}

// Users is every user a memory the filter keeps can belong to; bounded is false
// when the filter does not confine the user (then any user's memory may match).
func (f Filter) Users() (users []string, bounded bool) {
	switch f.kind {
	case kindAnd:
		return f.andUsers()
	case kindOr:
		var all []string
		for _, c := range f.children {
			u, ok := c.Users()
			if !ok {
				return nil, false
			}
			all = appendNew(all, u...)
		}
		return all, true
	case kindCond:
		return f.cond.users()
	}
	return nil, false
}

func (f Filter) andUsers() ([]string, bool) {
	var out []string
	bounded := false
	for _, c := range f.children {
		u, ok := c.Users()
		if !ok {
			continue
		}
		if !bounded {
			out, bounded = u, true
			continue
		}
		out = slices.DeleteFunc(slices.Clone(out), func(x string) bool { return !slices.Contains(u, x) })
	}
	return out, bounded
}

func (c Condition) users() ([]string, bool) {
	if c.Field != UserID || (c.Op != Eq && c.Op != In) {
		return nil, false
	}
	var out []string
	for _, v := range c.Values {
		out = appendNew(out, str(v))
	}
	return out, true
}

func appendNew(list []string, values ...string) []string {
	for _, v := range values {
		if !slices.Contains(list, v) {
			list = append(list, v)
		}
	}
	return list
}

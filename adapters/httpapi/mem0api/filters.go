package mem0api

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"engram/domain/memfilter"
)

// The filters of mem0's v2 and v3 routes: an object whose members are
// conditions on a field ({"user_id": "alice"}, {"created_at": {"gte": "2026-01-01"}})
// or the logical operators AND, OR and NOT, each a list of such objects. The
// members of one object all hold (an AND).

// opsByField are the operators each field takes besides eq.
var opsByField = map[memfilter.Field][]memfilter.Op{
	memfilter.UserID:         {memfilter.Ne, memfilter.In},
	memfilter.AgentID:        {memfilter.Ne, memfilter.In},
	memfilter.AppID:          {memfilter.Ne, memfilter.In},
	memfilter.RunID:          {memfilter.Ne, memfilter.In},
	memfilter.CreatedAt:      {memfilter.Gt, memfilter.Gte, memfilter.Lt, memfilter.Lte, memfilter.Ne, memfilter.In},
	memfilter.UpdatedAt:      {memfilter.Gt, memfilter.Gte, memfilter.Lt, memfilter.Lte, memfilter.Ne, memfilter.In},
	memfilter.ExpirationDate: {memfilter.Gt, memfilter.Gte, memfilter.Lt, memfilter.Lte, memfilter.Ne, memfilter.In},
	memfilter.Categories:     {memfilter.In, memfilter.Contains, memfilter.Ne},
	memfilter.Metadata:       {memfilter.Ne, memfilter.In, memfilter.Contains},
	memfilter.Keywords:       {memfilter.Contains},
	memfilter.MemoryIDs:      {memfilter.In},
}

func isTimeField(f memfilter.Field) bool {
	return f == memfilter.CreatedAt || f == memfilter.UpdatedAt || f == memfilter.ExpirationDate
}

// parseFilters reads a filters object; absent or null is no filter.
func parseFilters(raw json.RawMessage) (memfilter.Filter, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return memfilter.All(), nil
	}
	return parseGroup("filters", raw)
}

func parseGroup(where string, raw json.RawMessage) (memfilter.Filter, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return memfilter.Filter{}, badRequest(where + " must be an object of conditions, such as {\"user_id\": \"alice\"}")
	}
	if _, and := members["AND"]; and {
		if _, or := members["OR"]; or {
			return memfilter.Filter{}, badRequest(where + ` has "AND" and "OR" side by side, which is ambiguous (mem0 drops one of them); ` +
				`nest one in the other: {"AND": [{"user_id": "alice"}, {"OR": [{"agent_id": "a"}, {"agent_id": "b"}]}]}`)
		}
	}
	names := make([]string, 0, len(members))
	for name := range members {
		names = append(names, name)
	}
	sort.Strings(names) // one order, so that errors name the same member every time
	parts := make([]memfilter.Filter, 0, len(names))
	for _, name := range names {
		f, err := parseMember(where+"."+name, name, members[name])
		if err != nil {
			return memfilter.Filter{}, err
		}
		parts = append(parts, f)
	}
	if len(parts) == 0 {
		return memfilter.All(), nil
	}
	return memfilter.And(parts...), nil
}

func parseMember(where, name string, raw json.RawMessage) (memfilter.Filter, error) {
	switch name {
	case "AND", "OR", "NOT":
		return parseLogical(where, name, raw)
	case string(memfilter.Metadata):
		return parseMetadata(where, raw)
	}
	field := memfilter.Field(name)
	if _, known := opsByField[field]; !known {
		return memfilter.Filter{}, badRequest(where + " is not a filter engram knows; filter on user_id, agent_id, app_id, run_id, " +
			"created_at, updated_at, expiration_date, categories, metadata, keywords or memory_ids, joined with AND, OR and NOT")
	}
	return parseCondition(where, field, "", raw)
}

func parseLogical(where, name string, raw json.RawMessage) (memfilter.Filter, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil || len(list) == 0 {
		return memfilter.Filter{}, badRequest(where + " must be a non-empty list of filter objects")
	}
	parts := make([]memfilter.Filter, len(list))
	for i, item := range list {
		f, err := parseGroup(where+"["+strconv.Itoa(i)+"]", item)
		if err != nil {
			return memfilter.Filter{}, err
		}
		parts[i] = f
	}
	switch name {
	case "AND":
		return memfilter.And(parts...), nil
	case "OR":
		return memfilter.Or(parts...), nil
	}
	return memfilter.Not(parts...), nil
}

// parseMetadata reads {"metadata": {"key": value | {"op": value}}}.
func parseMetadata(where string, raw json.RawMessage) (memfilter.Filter, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil || len(keys) == 0 {
		return memfilter.Filter{}, badRequest(where + ` must be an object of metadata keys, such as {"source": "onboarding"}`)
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]memfilter.Filter, 0, len(names))
	for _, k := range names {
		f, err := parseCondition(where+"."+k, memfilter.Metadata, k, keys[k])
		if err != nil {
			return memfilter.Filter{}, err
		}
		parts = append(parts, f)
	}
	return memfilter.And(parts...), nil
}

// parseCondition reads a field's value: a plain value (eq; "*": any value; a
// list for categories and memory_ids: in) or an object of operators.
func parseCondition(where string, field memfilter.Field, key string, raw json.RawMessage) (memfilter.Filter, error) {
	var ops map[string]json.RawMessage
	if err := json.Unmarshal(raw, &ops); err != nil || field == memfilter.Metadata && !isOperatorObject(ops) {
		return plainCondition(where, field, key, raw)
	}
	names := make([]string, 0, len(ops))
	for op := range ops {
		names = append(names, op)
	}
	sort.Strings(names)
	parts := make([]memfilter.Filter, 0, len(names))
	for _, name := range names {
		op := memfilter.Op(name)
		if name == "icontains" {
			op = memfilter.Contains
		}
		if !slices.Contains(opsByField[field], op) && op != memfilter.Eq {
			return memfilter.Filter{}, badRequest(where + " does not take the operator " + strconv.Quote(name) + "; it takes eq, " + opNames(field))
		}
		values, err := operands(where+"."+name, field, op, ops[name])
		if err != nil {
			return memfilter.Filter{}, err
		}
		parts = append(parts, memfilter.Where(memfilter.Condition{Field: field, Key: key, Op: op, Values: values}))
	}
	if len(parts) == 0 {
		return memfilter.Filter{}, badRequest(where + " is an empty object; give a value or an operator such as {\"in\": […]}")
	}
	return memfilter.And(parts...), nil
}

// isOperatorObject tells a metadata value that is an object of operators from
// one that is a JSON object to compare with.
func isOperatorObject(ops map[string]json.RawMessage) bool {
	if len(ops) == 0 {
		return false
	}
	for name := range ops {
		op := memfilter.Op(name)
		if name != "icontains" && op != memfilter.Eq && !slices.Contains(opsByField[memfilter.Metadata], op) {
			return false
		}
	}
	return true
}

func opNames(field memfilter.Field) string {
	names := make([]string, len(opsByField[field]))
	for i, op := range opsByField[field] {
		names[i] = string(op)
	}
	return strings.Join(names, ", ")
}

func plainCondition(where string, field memfilter.Field, key string, raw json.RawMessage) (memfilter.Filter, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil && s == "*" && field != memfilter.Metadata {
		return memfilter.Where(memfilter.Condition{Field: field, Op: memfilter.Any}), nil
	}
	op := memfilter.Eq
	switch field {
	case memfilter.Categories, memfilter.MemoryIDs:
		if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
			op = memfilter.In
		} else {
			op = memfilter.Contains
		}
	case memfilter.Keywords:
		op = memfilter.Contains
	}
	values, err := operands(where, field, op, raw)
	if err != nil {
		return memfilter.Filter{}, err
	}
	return memfilter.Where(memfilter.Condition{Field: field, Key: key, Op: op, Values: values}), nil
}

// operands reads an operator's value: a list for in, one value otherwise;
// times for date fields, JSON values for metadata, strings for the rest.
func operands(where string, field memfilter.Field, op memfilter.Op, raw json.RawMessage) ([]any, error) {
	var items []json.RawMessage
	if op == memfilter.In {
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, badRequest(where + " must be a list")
		}
	} else {
		items = []json.RawMessage{raw}
	}
	out := make([]any, len(items))
	for i, item := range items {
		v, err := operand(where, field, item)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func operand(where string, field memfilter.Field, raw json.RawMessage) (any, error) {
	switch {
	case isTimeField(field):
		return parseFilterTime(where, raw)
	case field == memfilter.Metadata:
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, badRequest(where + " must be a JSON value")
		}
		return v, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, badRequest(where + " must be a string")
	}
	return s, nil
}

// parseFilterTime accepts an RFC 3339 time, a date (midnight UTC) or Unix seconds.
func parseFilterTime(where string, raw json.RawMessage) (time.Time, error) {
	var seconds float64
	if json.Unmarshal(raw, &seconds) == nil {
		return time.Unix(int64(seconds), 0).UTC(), nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", time.DateOnly} {
			if t, err := time.Parse(layout, s); err == nil {
				return t, nil
			}
		}
	}
	return time.Time{}, badRequest(where + " must be a date (2026-01-31), an RFC 3339 time (2026-01-31T12:00:00Z) or Unix seconds")
}

package memory

import (
	"strings"
	"testing"
	"time"
)

func TestFilter_Validate(t *testing.T) {
	t.Parallel()
	leaf := func(f Filter, err error) Filter {
		if err != nil {
			t.Fatalf("leaf: %v", err)
		}
		return f
	}
	agent := leaf(Where(FieldAgent, CmpEq, "a1"))
	deep := agent
	for range MaxFilterDepth {
		deep = Not(deep)
	}
	many := make([]Filter, MaxFilterConditions+1)
	for i := range many {
		many[i] = agent
	}
	cases := []struct {
		name    string
		build   func() (Filter, error)
		wantErr string // "" when valid
	}{
		{"zero filter selects everything", func() (Filter, error) { return Filter{}, nil }, ""},
		{"and of or and not", func() (Filter, error) {
			return And(Or(agent, leaf(Where(FieldRun, CmpAny))), Not(leaf(WhereTime(FieldCreatedAt, CmpGt, time.Now())))), nil
		}, ""},
		{"metadata eq quotes JSON", func() (Filter, error) { return WhereMetadata("topic", CmpEq, []byte(`"travel"`)) }, ""},
		{"metadata contains takes text", func() (Filter, error) { return WhereMetadata("topic", CmpContains, []byte(`trav`)) }, ""},
		{"type parsed in any case", func() (Filter, error) { return Where(FieldType, CmpIn, "FACT", "goal") }, ""},
		{"unknown type", func() (Filter, error) { return Where(FieldType, CmpEq, "profile") }, "must be one of"},
		{"agent_id gt", func() (Filter, error) { return Where(FieldAgent, CmpGt, "a") }, "filters.agent_id"},
		{"eq with two values", func() (Filter, error) { return Where(FieldUser, CmpEq, "a", "b") }, "exactly one value"},
		{"in without values", func() (Filter, error) { return Where(FieldUser, CmpIn) }, "1 to 100 values"},
		{"any with a value", func() (Filter, error) { return Where(FieldRun, CmpAny, "r") }, "takes no value"},
		{"empty id", func() (Filter, error) { return Where(FieldUser, CmpEq, "") }, "1 to 128 characters"},
		{"content eq", func() (Filter, error) { return Where(FieldContent, CmpEq, "x") }, "takes one of contains"},
		{"created_at contains", func() (Filter, error) { return WhereTime(FieldCreatedAt, CmpContains, time.Now()) }, "filters.created_at"},
		{"metadata value not JSON", func() (Filter, error) { return WhereMetadata("topic", CmpEq, []byte(`travel`)) }, "filters.metadata.topic"},
		{"metadata key with a quote", func() (Filter, error) { return WhereMetadata(`a"b`, CmpAny) }, "filters.metadata"},
		{"unknown field", func() (Filter, error) { return Where(Field("colour"), CmpEq, "red") }, "not a field"},
		{"empty and", func() (Filter, error) { return And(), nil }, "AND needs at least one"},
		{"not of two", func() (Filter, error) { return Filter{Op: FilterNot, Parts: []Filter{agent, agent}}, nil }, "exactly one condition"},
		{"too deep", func() (Filter, error) { return Not(deep), nil }, "at most 8 deep"},
		{"too many conditions", func() (Filter, error) { return Or(many...), nil }, "at most 100 conditions"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f, err := c.build()
			if err == nil {
				err = f.Validate()
			}
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("valid filter refused: %v", err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Fatalf("error %v, want one saying %q", err, c.wantErr)
			}
		})
	}
}

func TestWhere_doesNotChangeTheCallersValues(t *testing.T) {
	t.Parallel()
	values := []string{"FACT"}
	if _, err := Where(FieldType, CmpIn, values...); err != nil || values[0] != "FACT" {
		t.Errorf("values %v, %v", values, err)
	}
}

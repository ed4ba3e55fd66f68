package mem0api

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"engram/domain/memfilter"
)

// fakeMemory is a memory as a filter sees it.
type fakeMemory struct {
	id       string
	entities map[memfilter.Field]string
	created  time.Time
	category string
	metadata map[string]any
	text     string
}

func (m fakeMemory) MemoryID() string                { return m.id }
func (m fakeMemory) Entity(f memfilter.Field) string { return m.entities[f] }
func (m fakeMemory) Categories() []string            { return []string{m.category} }
func (m fakeMemory) Metadata() map[string]any        { return m.metadata }
func (m fakeMemory) Text() string                    { return m.text }
func (m fakeMemory) Time(f memfilter.Field) (t time.Time) {
	if f == memfilter.CreatedAt {
		return m.created
	}
	return t
}

var (
	aliceAgent = fakeMemory{id: "m1", entities: map[memfilter.Field]string{memfilter.UserID: "alice", memfilter.AgentID: "travel"},
		created: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), category: "preference",
		metadata: map[string]any{"source": "onboarding", "tags": []any{"a", "b"}, "n": 3.0}, text: "Likes window seats"}
	bobPlain = fakeMemory{id: "m2", entities: map[memfilter.Field]string{memfilter.UserID: "bob"},
		created: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), category: "fact", text: "Lives in Oslo"}
)

func TestParseFilters_keepsWhatTheTreeSays(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		filters string
		alice   bool
		bob     bool
	}{
		{"no filter", ``, true, true},
		{"user eq", `{"user_id":"alice"}`, true, false},
		{"user and agent", `{"AND":[{"user_id":"alice"},{"agent_id":"travel"}]}`, true, false},
		{"implicit and", `{"user_id":"bob","agent_id":"travel"}`, false, false},
		{"or", `{"OR":[{"user_id":"alice"},{"user_id":"bob"}]}`, true, true},
		{"in", `{"user_id":{"in":["bob","carol"]}}`, false, true},
		{"ne", `{"user_id":{"ne":"alice"}}`, false, true},
		{"any agent", `{"agent_id":"*"}`, true, false},
		{"not", `{"NOT":[{"agent_id":"*"}]}`, false, true},
		{"date gte", `{"created_at":{"gte":"2026-01-01"}}`, true, false},
		{"date range", `{"created_at":{"gte":"2024-06-01T00:00:00Z","lt":"2025-06-01"}}`, false, true},
		{"date unix", `{"created_at":{"lt":1735689600}}`, false, false},
		{"categories in", `{"categories":{"in":["fact","goal"]}}`, false, true},
		{"categories contains", `{"categories":{"contains":"preference"}}`, true, false},
		{"metadata eq", `{"metadata":{"source":"onboarding"}}`, true, false},
		{"metadata number", `{"metadata":{"n":3}}`, true, false},
		{"metadata ne", `{"metadata":{"source":{"ne":"onboarding"}}}`, false, true},
		{"metadata list contains", `{"metadata":{"tags":{"contains":"b"}}}`, true, false},
		{"keywords", `{"keywords":{"icontains":"OSLO"}}`, false, true},
		{"memory ids", `{"memory_ids":["m2","m9"]}`, false, true},
		{"nested", `{"AND":[{"OR":[{"user_id":"alice"},{"user_id":"bob"}]},{"NOT":[{"categories":{"in":["fact"]}}]}]}`, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f, err := parseFilters(json.RawMessage(c.filters))
			if err != nil {
				t.Fatalf("parseFilters(%s): %v", c.filters, err)
			}
			if got := f.Match(aliceAgent); got != c.alice {
				t.Errorf("%s keeps alice's memory = %v, want %v", c.filters, got, c.alice)
			}
			if got := f.Match(bobPlain); got != c.bob {
				t.Errorf("%s keeps bob's memory = %v, want %v", c.filters, got, c.bob)
			}
		})
	}
}

func TestParseFilters_refusesWithA400ThatSaysWhatToWrite(t *testing.T) {
	t.Parallel()
	cases := []struct {
		filters, says string
	}{
		{`{"AND":[{"user_id":"a"}],"OR":[{"agent_id":"b"}]}`, `nest one in the other: {"AND": [{"user_id": "alice"}, {"OR"`},
		{`{"AND":[{"user_id":"a"},{"AND":[{"user_id":"a"}],"OR":[{"user_id":"b"}]}]}`, `filters.AND[1] has "AND" and "OR" side by side`},
		{`{"colour":"red"}`, "filters.colour is not a filter engram knows"},
		{`{"user_id":{"gte":"a"}}`, `does not take the operator "gte"`},
		{`{"created_at":{"gte":"yesterday"}}`, "must be a date (2026-01-31)"},
		{`{"AND":[]}`, "must be a non-empty list"},
		{`{"user_id":{"in":"alice"}}`, "filters.user_id.in must be a list"},
		{`["user_id"]`, "must be an object of conditions"},
	}
	for _, c := range cases {
		_, err := parseFilters(json.RawMessage(c.filters))
		var f *failure
		if !errors.As(err, &f) || f.status != http.StatusBadRequest || !strings.Contains(f.detail, c.says) {
			t.Errorf("parseFilters(%s) = %v, want a 400 saying %q", c.filters, err, c.says)
		}
	}
}

func TestFilterUsers_boundsTheUsersToRead(t *testing.T) {
	t.Parallel()
	cases := []struct {
		filters string
		users   []string
		bounded bool
	}{
		{`{"user_id":"alice"}`, []string{"alice"}, true},
		{`{"AND":[{"user_id":"alice"},{"agent_id":"x"}]}`, []string{"alice"}, true},
		{`{"OR":[{"user_id":"alice"},{"user_id":{"in":["bob","alice"]}}]}`, []string{"alice", "bob"}, true},
		{`{"OR":[{"user_id":"alice"},{"agent_id":"x"}]}`, nil, false},
		{`{"user_id":{"ne":"alice"}}`, nil, false},
		{`{"AND":[{"user_id":{"in":["a","b"]}},{"user_id":"b"}]}`, []string{"b"}, true},
	}
	for _, c := range cases {
		f, err := parseFilters(json.RawMessage(c.filters))
		if err != nil {
			t.Fatal(err)
		}
		users, bounded := f.Users()
		slices.Sort(users)
		if bounded != c.bounded || !slices.Equal(users, c.users) {
			t.Errorf("%s: users %v bounded %v, want %v %v", c.filters, users, bounded, c.users, c.bounded)
		}
	}
}

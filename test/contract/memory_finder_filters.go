package contract

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"engram/domain/memory"
	"engram/ports"
)

// finderFixture is a tenant's memories over three users, with every kind of
// attribute, one deleted and one of another tenant, created an hour apart.
type finderFixture struct {
	store FinderStore
	t0    time.Time
	now   time.Time
	ids   map[string]string // name → memory id
}

func newFinderFixture(t *testing.T, ctx context.Context, store FinderStore) finderFixture {
	t.Helper()
	f := finderFixture{store: store, t0: time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC), ids: map[string]string{}}
	f.now = f.t0.Add(5 * time.Hour)
	ttl := 30
	rows := []struct {
		name, tenant, user, typ, content string
		attrs                            memory.AttributesInput
		ttlDays                          *int
	}{
		{"a", "t1", "u1", "fact", "Flies to Lisbon in May", memory.AttributesInput{AgentID: "A1", AppID: "P1", RunID: "R1",
			Metadata: []byte(`{"topic":"travel","n":1,"flag":true}`)}, nil},
		{"b", "t1", "u1", "preference", "Likes window seats", memory.AttributesInput{AgentID: "A2", Metadata: []byte(`{"topic":"Work trips","n":"1"}`)}, nil},
		{"c", "t1", "u2", "goal", "Learns Portuguese", memory.AttributesInput{AgentID: "A1", RunID: "R2"}, nil},
		{"d", "t1", "u2", "fact", "Lives in Berlin", memory.AttributesInput{}, nil},
		{"f", "t1", "u3", "project", "Builds a boat", memory.AttributesInput{}, &ttl},
		{"e", "t2", "u1", "fact", "Another tenant's", memory.AttributesInput{AgentID: "A1"}, nil},
	}
	for i, r := range rows {
		d, err := memory.ParseDraft(memory.DraftInput{Type: r.typ, Content: r.content, TTLDays: r.ttlDays, Attributes: r.attrs},
			memory.Source{Channel: memory.ChannelTool})
		if err != nil {
			t.Fatalf("draft %s: %v", r.name, err)
		}
		scope := memory.Scope{Tenant: r.tenant, User: r.user}
		m, err := memSave(ctx, store, scope, memory.MustParseKey(r.name), d, f.t0.Add(time.Duration(i)*time.Hour))
		if err != nil {
			t.Fatalf("save %s: %v", r.name, err)
		}
		f.ids[r.name] = m.ID()
	}
	if _, err := memDelete(ctx, store, memory.Scope{Tenant: "t1", User: "u2"}, memory.MustParseKey("d"), f.t0.Add(4*time.Hour), nil); err != nil {
		t.Fatalf("delete d: %v", err)
	}
	return f
}

// names are the keys of a page, in its order.
func finderNames(items []memory.Memory) string {
	names := make([]string, len(items))
	for i, m := range items {
		names[i] = m.Key().String()
	}
	return strings.Join(names, ",")
}

// filterOK returns a helper that fails t on a filter's construction error.
func filterOK(t *testing.T) func(memory.Filter, error) memory.Filter {
	return func(f memory.Filter, err error) memory.Filter {
		t.Helper()
		if err != nil {
			t.Fatalf("filter: %v", err)
		}
		return f
	}
}

// runFinderFilters is the Find part of RunMemoryFinder.
func runFinderFilters(t *testing.T, open func(t *testing.T) FinderStore) {
	t.Run("Find translates every field and comparison of a filter", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		fx := newFinderFixture(t, ctx, store)
		ok := filterOK(t)
		where := func(field memory.Field, cmp memory.Comparison, v ...string) memory.Filter {
			return ok(memory.Where(field, cmp, v...))
		}
		at := func(field memory.Field, cmp memory.Comparison, hours ...int) memory.Filter {
			times := make([]time.Time, len(hours))
			for i, h := range hours {
				times[i] = fx.t0.Add(time.Duration(h) * time.Hour)
			}
			return ok(memory.WhereTime(field, cmp, times...))
		}
		meta := func(key string, cmp memory.Comparison, v ...string) memory.Filter {
			raw := make([][]byte, len(v))
			for i, s := range v {
				raw[i] = []byte(s)
			}
			return ok(memory.WhereMetadata(key, cmp, raw...))
		}
		cases := []struct {
			name   string
			filter memory.Filter
			want   string
		}{
			{"no filter: every live memory of the tenant, newest first", memory.Filter{}, "f,c,b,a"},
			{"user and agent", memory.And(where(memory.FieldUser, memory.CmpEq, "u1"), where(memory.FieldAgent, memory.CmpEq, "A1")), "a"},
			{"agent in", where(memory.FieldAgent, memory.CmpIn, "A1", "A2"), "c,b,a"},
			{"agent ne keeps memories without an agent", where(memory.FieldAgent, memory.CmpNe, "A1"), "f,b"},
			{"agent any", where(memory.FieldAgent, memory.CmpAny), "c,b,a"},
			{"app any", where(memory.FieldApp, memory.CmpAny), "a"},
			{"run nin keeps memories without a run", where(memory.FieldRun, memory.CmpNotIn, "R1"), "f,c,b"},
			{"created_at range", memory.And(at(memory.FieldCreatedAt, memory.CmpGte, 1), at(memory.FieldCreatedAt, memory.CmpLt, 3)), "c,b"},
			{"created_at in", at(memory.FieldCreatedAt, memory.CmpIn, 0, 2), "c,a"},
			{"created_at ne", at(memory.FieldCreatedAt, memory.CmpNe, 0), "f,c,b"},
			{"updated_at gt", at(memory.FieldUpdatedAt, memory.CmpGt, 1), "f,c"},
			{"updated_at lte", at(memory.FieldUpdatedAt, memory.CmpLte, 1), "b,a"},
			{"expires_at any", where(memory.FieldExpiresAt, memory.CmpAny), "f"},
			{"expires_at after a day", at(memory.FieldExpiresAt, memory.CmpGt, 24), "f"},
			{"type in", where(memory.FieldType, memory.CmpIn, "fact", "GOAL"), "c,a"},
			{"type contains", where(memory.FieldType, memory.CmpContains, "preference"), "b"},
			{"type nin", where(memory.FieldType, memory.CmpNotIn, "fact", "goal"), "f,b"},
			{"metadata eq string", meta("topic", memory.CmpEq, `"travel"`), "a"},
			{"metadata eq number is not the string", meta("n", memory.CmpEq, `1`), "a"},
			{"metadata eq string is not the number", meta("n", memory.CmpEq, `"1"`), "b"},
			{"metadata eq boolean", meta("flag", memory.CmpEq, `true`), "a"},
			{"metadata in", meta("topic", memory.CmpIn, `"travel"`, `"Work trips"`), "b,a"},
			{"metadata ne keeps memories without the key", meta("topic", memory.CmpNe, `"travel"`), "f,c,b"},
			{"metadata nin", meta("topic", memory.CmpNotIn, `"travel"`, `"Work trips"`), "f,c"},
			{"metadata contains folds ASCII case", meta("topic", memory.CmpContains, "WORK"), "b"},
			{"metadata any", meta("n", memory.CmpAny), "b,a"},
			{"not metadata any", memory.Not(meta("topic", memory.CmpAny)), "f,c"},
			{"memory ids", where(memory.FieldID, memory.CmpIn, fx.ids["a"], fx.ids["c"], fx.ids["e"]), "c,a"},
			{"memory id ne", where(memory.FieldID, memory.CmpNe, fx.ids["f"]), "c,b,a"},
			{"or", memory.Or(where(memory.FieldAgent, memory.CmpEq, "A2"), where(memory.FieldRun, memory.CmpEq, "R2")), "c,b"},
			{"not", memory.Not(where(memory.FieldUser, memory.CmpEq, "u1")), "f,c"},
			{"and of or and not", memory.And(
				memory.Or(where(memory.FieldUser, memory.CmpEq, "u1"), where(memory.FieldUser, memory.CmpEq, "u2")),
				memory.Not(where(memory.FieldType, memory.CmpEq, "goal"))), "b,a"},
			{"content contains", where(memory.FieldContent, memory.CmpContains, "PORTUGUESE"), "c"},
			{"content contains is literal", where(memory.FieldContent, memory.CmpContains, "%"), ""},
		}
		for _, c := range cases {
			if err := c.filter.Validate(); err != nil {
				t.Fatalf("%s: invalid filter: %v", c.name, err)
			}
			page, err := store.Find(ctx, "t1", ports.FindQuery{Filter: c.filter, Now: fx.now})
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
				continue
			}
			if got := finderNames(page.Items); got != c.want || page.Total != len(page.Items) {
				t.Errorf("%s: got %q (total %d), want %q", c.name, got, page.Total, c.want)
			}
		}
	})

	t.Run("Find pages with offset and limit, counts every match, and shows inactive memories when asked", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		fx := newFinderFixture(t, ctx, store)
		ok := filterOK(t)
		page, err := store.Find(ctx, "t1", ports.FindQuery{Offset: 1, Limit: 2, Now: fx.now})
		if err != nil || finderNames(page.Items) != "c,b" || page.Total != 4 {
			t.Errorf("page 2 of 2: %q total %d, %v; want c,b of 4", finderNames(page.Items), page.Total, err)
		}
		page, err = store.Find(ctx, "t1", ports.FindQuery{Offset: 4, Limit: 2, Now: fx.now})
		if err != nil || len(page.Items) != 0 || page.Total != 4 {
			t.Errorf("past the end: %q total %d, %v; want nothing of 4", finderNames(page.Items), page.Total, err)
		}
		u2 := ok(memory.Where(memory.FieldUser, memory.CmpEq, "u2"))
		page, err = store.Find(ctx, "t1", ports.FindQuery{Filter: u2, IncludeInactive: true, Now: fx.now})
		if err != nil || finderNames(page.Items) != "d,c" {
			t.Errorf("u2 with inactive: %q, %v; want d,c", finderNames(page.Items), err)
		}
		// A memory is expired from the instant of its expiry.
		later := fx.now.Add(31 * 24 * time.Hour)
		page, err = store.Find(ctx, "t1", ports.FindQuery{Now: later})
		if err != nil || slices.Contains(strings.Split(finderNames(page.Items), ","), "f") {
			t.Errorf("after f expired: %q, %v; want f left out", finderNames(page.Items), err)
		}
	})

	t.Run("Find refuses an invalid filter", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		bad := memory.Filter{Op: memory.FilterMatch, Cond: memory.Condition{Field: memory.FieldAgent, Cmp: memory.CmpGt, Values: []string{"x"}}}
		if _, err := store.Find(ctx, "t1", ports.FindQuery{Filter: bad, Now: time.Now()}); err == nil || !strings.Contains(err.Error(), "agent_id") {
			t.Errorf("agent_id gt: error %v, want one naming filters.agent_id", err)
		}
	})
}

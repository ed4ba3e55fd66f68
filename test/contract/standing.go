package contract

import (
	"context"
	"slices"
	"testing"
	"time"

	"engram/domain/memory"
	"engram/ports"
)

// StandingStore is a memory store with the context call's read of standing
// memories.
type StandingStore interface {
	ports.MemoryStore
	StandingMemories(ctx context.Context, scope memory.Scope, minImportance int, now time.Time, limit int) ([]memory.Memory, error)
}

// RunStandingMemories is the contract of the standing read. Behaviour it pins down:
//   - It returns the user's live memories that are constraints, of at least
//     minImportance, or pinned — never another user's, a deleted, an expired or a
//     noise-key one — most important first, then most recently changed.
//   - limit holds across the important ones and the pinned ones and constraints.
//   - pinned and ttl_days come back from Get and from the events as written.
func RunStandingMemories(t *testing.T, open func(t *testing.T) StandingStore) {
	t.Helper()
	t0 := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	pinned, never := true, 0

	t.Run("reads constraints, important and pinned memories in order, nothing else", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		tool := memory.Source{Channel: memory.ChannelTool}
		write := func(scope memory.Scope, key string, typ memory.Type, importance int, in memory.DraftInput, at time.Time) {
			t.Helper()
			in.Type, in.Content, in.Importance = string(typ), "text of "+key, &importance
			d, err := memory.ParseDraft(in, tool)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := memSave(ctx, store, scope, memory.MustParseKey(key), d, at); err != nil {
				t.Fatalf("save %s: %v", key, err)
			}
		}
		other := memory.Scope{Tenant: memScope1.Tenant, User: "someone-else"}
		write(memScope1, "reply.language", memory.TypeConstraint, 3, memory.DraftInput{}, t0)
		write(memScope1, "allergy.peanuts", memory.TypeFact, 5, memory.DraftInput{}, t0)
		write(memScope1, "diet.vegan", memory.TypePreference, 4, memory.DraftInput{}, t0.Add(time.Minute))
		write(memScope1, "project.codename", memory.TypeProject, 2, memory.DraftInput{Pinned: &pinned}, t0)
		write(memScope1, "hobby.chess", memory.TypePreference, 3, memory.DraftInput{}, t0) // not standing
		write(memScope1, "temp.rule", memory.TypeConstraint, 5, memory.DraftInput{TTLDays: ptrTo(1)}, t0.Add(-48*time.Hour))
		write(memScope1, "deleted.rule", memory.TypeConstraint, 5, memory.DraftInput{}, t0)
		if _, err := memDelete(ctx, store, memScope1, memory.MustParseKey("deleted.rule"), t0, nil); err != nil {
			t.Fatal(err)
		}
		write(other, "their.rule", memory.TypeConstraint, 5, memory.DraftInput{TTLDays: &never}, t0)

		keys := func(limit int) []string {
			t.Helper()
			ms, err := store.StandingMemories(ctx, memScope1, 4, t0.Add(time.Hour), limit)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, m := range ms {
				out = append(out, m.Key().String())
			}
			return out
		}
		want := []string{"allergy.peanuts", "diet.vegan", "reply.language", "project.codename"}
		if got := keys(10); !slices.Equal(got, want) {
			t.Errorf("standing = %v, want %v", got, want)
		}
		for limit := 1; limit <= 4; limit++ {
			if got := keys(limit); !slices.Equal(got, want[:limit]) {
				t.Errorf("limit %d: standing = %v, want %v", limit, got, want[:limit])
			}
		}
	})

	t.Run("pinned and the lifetime round-trip through Get and the events", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		d, err := memory.ParseDraft(memory.DraftInput{Type: "fact", Content: "works on Apollo", Pinned: &pinned, TTLDays: &never},
			memory.Source{Channel: memory.ChannelTool})
		if err != nil {
			t.Fatal(err)
		}
		key := memory.MustParseKey("project.apollo")
		saved, err := memSave(ctx, store, memScope1, key, d, t0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := store.Get(ctx, memScope1, key)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Pinned() || got.TTLDays() != 0 || !got.ExpiresAt().IsZero() {
			t.Errorf("get = %+v, want pinned, never expiring", got.State())
		}
		memExpectState(t, "returned by Get", got.State(), saved.State())
		d.TTLDays, d.NeverExpires = 30, false
		if _, err := memSave(ctx, store, memScope1, key, d, t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		events, err := store.History(ctx, memScope1, key)
		if err != nil || len(events) != 2 {
			t.Fatalf("history = %v, %v; want 2 events", events, err)
		}
		if a := events[1].After; !a.Pinned || a.TTLDays != 30 || !a.ExpiresAt.Equal(t0.Add(time.Hour).AddDate(0, 0, 30)) || !events[1].Before.Pinned || events[1].Before.TTLDays != 0 {
			t.Errorf("events = before %+v after %+v, want pinned both, lifetime 0 then 30 days", events[1].Before, a)
		}
	})
}

func ptrTo[T any](v T) *T { return &v }

package contract

import (
	"errors"
	"testing"
	"time"

	"engram/domain/memory"
	"engram/ports"
)

// FinderStore is a memory store that also finds memories without their user.
type FinderStore interface {
	ports.MemoryStore
	ports.MemoryFinder
}

// RunMemoryFinder is the contract of ports.MemoryFinder and of the memory
// attributes (agent, app and run ids, metadata) every memory store keeps. open
// returns an empty store; each case opens its own.
func RunMemoryFinder(t *testing.T, open func(t *testing.T) FinderStore) {
	t.Helper()
	runFinderFilters(t, open)

	t.Run("attributes come back from Get, ByID and the events", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
		d := finderDraft(t, "Flies to Lisbon in May", memory.AttributesInput{AgentID: "travel-bot", AppID: "trips",
			RunID: "run-1", Metadata: []byte(`{"topic": "travel", "n": 12345678901234567890, "tags": ["a","b"]}`)})
		key := memory.MustParseKey("trip.lisbon")
		saved, err := memSave(ctx, store, memScope1, key, d, now)
		if err != nil {
			t.Fatalf("save: %v", err)
		}
		wantMeta := `{"n":12345678901234567890,"tags":["a","b"],"topic":"travel"}`
		want := memory.Attributes{AgentID: "travel-bot", AppID: "trips", RunID: "run-1", Metadata: memory.RestoreMetadata(wantMeta)}
		if got := saved.Attributes(); got != want {
			t.Fatalf("saved attributes %+v, want %+v", got, want)
		}
		got, err := store.Get(ctx, memScope1, key)
		if err != nil || got.Attributes() != want {
			t.Fatalf("get: %+v, %v; want %+v", got.Attributes(), err, want)
		}
		byID, err := store.ByID(ctx, memScope1.Tenant, saved.ID())
		if err != nil {
			t.Fatalf("by id: %v", err)
		}
		memExpectState(t, "ByID", byID.State(), saved.State())

		// A replace naming only the agent keeps the other attributes.
		d2 := finderDraft(t, "Flies to Porto in May", memory.AttributesInput{AgentID: "other-bot"})
		if _, err := memSave(ctx, store, memScope1, key, d2, now.Add(time.Minute)); err != nil {
			t.Fatalf("replace: %v", err)
		}
		events := memHistory(t, ctx, store, memScope1, key)
		if len(events) != 2 {
			t.Fatalf("history has %d events, want 2", len(events))
		}
		if events[0].After.Attributes != want {
			t.Errorf("ADD event after %+v, want %+v", events[0].After.Attributes, want)
		}
		replaced := want
		replaced.AgentID = "other-bot"
		if events[1].Before == nil || events[1].Before.Attributes != want || events[1].After.Attributes != replaced {
			t.Errorf("UPDATE event before %+v after %+v, want %+v then %+v", events[1].Before, events[1].After.Attributes, want, replaced)
		}
	})

	t.Run("ByID finds the memory of any user of the tenant and nothing of another tenant", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
		other := memory.Scope{Tenant: memScope1.Tenant, User: "someone-else"}
		saved, err := memSave(ctx, store, other, memory.MustParseKey("diet"), finderDraft(t, "Is vegetarian", memory.AttributesInput{}), now)
		if err != nil {
			t.Fatalf("save: %v", err)
		}
		deleted, err := memDelete(ctx, store, other, memory.MustParseKey("diet"), now.Add(time.Second), nil)
		if err != nil {
			t.Fatalf("delete: %v", err)
		}
		got, err := store.ByID(ctx, memScope1.Tenant, saved.ID())
		if err != nil {
			t.Fatalf("by id: %v", err)
		}
		if got.Scope() != other || got.Active() || got.Version() != deleted.Version() {
			t.Errorf("by id = scope %+v active %v version %d, want %+v inactive version %d",
				got.Scope(), got.Active(), got.Version(), other, deleted.Version())
		}
		for _, c := range []struct{ tenant, id string }{
			{"another-tenant", saved.ID()},
			{memScope1.Tenant, "01JDOESNOTEXIST0000000000"},
		} {
			if _, err := store.ByID(ctx, c.tenant, c.id); !errors.Is(err, ports.ErrNotFound) {
				t.Errorf("ByID(%q, %q) error %v, want ErrNotFound", c.tenant, c.id, err)
			}
		}
	})
}

func finderDraft(t *testing.T, content string, attrs memory.AttributesInput) memory.Draft {
	t.Helper()
	d, err := memory.ParseDraft(memory.DraftInput{Type: "fact", Content: content, Attributes: attrs},
		memory.Source{Channel: memory.ChannelTool})
	if err != nil {
		t.Fatalf("draft: %v", err)
	}
	return d
}

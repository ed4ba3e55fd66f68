package contract

import (
	"errors"
	"testing"
	"time"

	"engram/domain/addevent"
	"engram/domain/memory"
	"engram/ports"
)

// AddEvents is an add event store that also purges a user's adds.
type AddEvents interface {
	ports.AddEventStore
	ports.UserPurger
}

// RunAddEventStore is the contract of ports.AddEventStore. open returns an empty
// store; each case opens its own.
func RunAddEventStore(t *testing.T, open func(t *testing.T) AddEvents) {
	t.Helper()
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 123456000, time.UTC)

	t.Run("an add is created PENDING, finished once, and read back whole by its tenant only", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		rec, err := addevent.New("add-1", memScope1, "run-1", []string{"m1", "m2"}, t0)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Create(ctx, rec); err != nil {
			t.Fatalf("create: %v", err)
		}
		if err := store.Create(ctx, rec); !errors.Is(err, ports.ErrConflict) {
			t.Errorf("second create: %v, want ErrConflict", err)
		}
		got, err := store.Get(ctx, memScope1.Tenant, "add-1")
		if err != nil || got.Status != addevent.StatusPending || len(got.MessageIDs) != 2 || got.MessageIDs[1] != "m2" ||
			got.ConversationID != "run-1" || got.Scope != memScope1 || !got.CreatedAt.Equal(t0) || len(got.Results) != 0 {
			t.Fatalf("get: %+v, %v", got, err)
		}
		if _, err := store.Get(ctx, "another-tenant", "add-1"); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("another tenant's get: %v, want ErrNotFound", err)
		}

		mem := memory.State{ID: "mem-1", Scope: memScope1, Key: memory.MustParseKey("diet"), Type: memory.TypeFact,
			Content: "Is vegetarian", Importance: 3, Confidence: 0.8, Active: true, Version: 1, CreatedAt: t0, UpdatedAt: t0,
			Attributes: memory.Attributes{AgentID: "chef", Metadata: memory.RestoreMetadata(`{"a":1}`)}}
		done := got
		done.Status, done.Results, done.UpdatedAt = addevent.StatusSucceeded,
			[]addevent.Result{{MemoryID: "mem-1", Change: addevent.ChangeAdd, Memory: mem}}, t0.Add(time.Second)
		if ok, err := store.Finish(ctx, done); err != nil || !ok {
			t.Fatalf("finish: %v, %v", ok, err)
		}
		failed := done
		failed.Status, failed.Error = addevent.StatusFailed, "late"
		if ok, err := store.Finish(ctx, failed); err != nil || ok {
			t.Errorf("second finish: %v, %v; want the first outcome kept", ok, err)
		}
		got, err = store.Get(ctx, memScope1.Tenant, "add-1")
		if err != nil || got.Status != addevent.StatusSucceeded || got.Error != "" || len(got.Results) != 1 || !got.UpdatedAt.Equal(t0.Add(time.Second)) {
			t.Fatalf("after finish: %+v, %v", got, err)
		}
		r := got.Results[0]
		if r.MemoryID != "mem-1" || r.Change != addevent.ChangeAdd {
			t.Errorf("result %+v", r)
		}
		memExpectState(t, "result memory", r.Memory, memory.State{ID: "mem-1", Scope: memScope1, Key: mem.Key, Type: mem.Type,
			Content: mem.Content, Importance: 3, Confidence: 0.8, Active: true, Version: 1, CreatedAt: t0, UpdatedAt: t0,
			Attributes: mem.Attributes})
	})

	t.Run("List pages newest first, by tenant or user, and PurgeUser removes a user's adds", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		other := memory.Scope{Tenant: memScope1.Tenant, User: "u2"}
		for i, c := range []struct {
			id    string
			scope memory.Scope
		}{{"a1", memScope1}, {"a2", other}, {"a3", memScope1}, {"x1", memory.Scope{Tenant: "t9", User: "u1"}}} {
			rec, err := addevent.NewDone(c.id, c.scope, nil, t0.Add(time.Duration(i)*time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			if err := store.Create(ctx, rec); err != nil {
				t.Fatalf("create %s: %v", c.id, err)
			}
		}
		ids := func(q ports.AddEventQuery) string {
			recs, err := store.List(ctx, memScope1.Tenant, q)
			if err != nil {
				t.Fatalf("list: %v", err)
			}
			out := ""
			for _, r := range recs {
				out += r.ID + " "
			}
			return out
		}
		if got := ids(ports.AddEventQuery{}); got != "a3 a2 a1 " {
			t.Errorf("tenant's adds %q, want a3 a2 a1", got)
		}
		if got := ids(ports.AddEventQuery{User: memScope1.User, Offset: 1, Limit: 5}); got != "a1 " {
			t.Errorf("user's second page %q, want a1", got)
		}
		removed, err := store.PurgeUser(ctx, memScope1)
		if err != nil || removed["add_events"] != 2 {
			t.Fatalf("purge: %v, %v; want 2 removed", removed, err)
		}
		if got := ids(ports.AddEventQuery{}); got != "a2 " {
			t.Errorf("after purge %q, want a2", got)
		}
	})
}

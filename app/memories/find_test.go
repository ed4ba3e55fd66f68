package memories_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"engram/adapters/ulids"
	"engram/app/memories"
	"engram/domain/memory"
	"engram/ports"
	"engram/test/fakeclock"
	"engram/test/teststore"
)

func TestFinder_byIDAndFindAcrossUsers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	stores := teststore.New(t)
	clk := fakeclock.New(time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC))
	svc := memories.New(stores.Memories, clk, ulids.New(), memory.Policy{})
	finder := memories.NewFinder(stores.Memories, clk)
	save := func(user, key, agent string) memory.Memory {
		t.Helper()
		res, err := svc.Save(ctx, memories.Save{Scope: memory.Scope{Tenant: "acme", User: user}, Key: key,
			Draft: memory.DraftInput{Type: "fact", Content: "about " + key, Attributes: memory.AttributesInput{AgentID: agent}}})
		if err != nil {
			t.Fatalf("save: %v", err)
		}
		clk.Advance(time.Minute)
		return res.Memory
	}
	a := save("alice", "a", "bot-1")
	b := save("bob", "b", "bot-1")
	save("bob", "c", "bot-2")

	got, err := finder.ByID(ctx, memories.ByID{Tenant: "acme", ID: b.ID()})
	if err != nil || got.Scope().User != "bob" || got.Key().String() != "b" {
		t.Fatalf("by id: %+v, %v", got.State(), err)
	}
	if _, err := finder.ByID(ctx, memories.ByID{Tenant: "globex", ID: b.ID()}); !errors.Is(err, ports.ErrNotFound) || !strings.Contains(err.Error(), b.ID()) {
		t.Errorf("another tenant: %v, want not found naming the id", err)
	}
	if err := svc.Delete(ctx, memories.Delete{Scope: a.Scope(), Key: "a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := finder.ByID(ctx, memories.ByID{Tenant: "acme", ID: a.ID()}); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("deleted memory: %v, want not found", err)
	}
	if m, err := finder.ByID(ctx, memories.ByID{Tenant: "acme", ID: a.ID(), IncludeInactive: true}); err != nil || m.Active() {
		t.Errorf("deleted memory with include_inactive: %+v, %v", m.State(), err)
	}

	bot1, _ := memory.Where(memory.FieldAgent, memory.CmpEq, "bot-1")
	res, err := finder.Find(ctx, memories.Find{Tenant: "acme", Filter: bot1})
	if err != nil || len(res.Items) != 1 || res.Items[0].ID() != b.ID() || res.Total != 1 || res.Page != 1 || res.PageSize != 100 {
		t.Errorf("find bot-1: %+v, %v; want only b (a is deleted)", res, err)
	}
	res, err = finder.Find(ctx, memories.Find{Tenant: "acme", Page: 2, PageSize: 1})
	if err != nil || len(res.Items) != 1 || res.Items[0].ID() != b.ID() || res.Total != 2 {
		t.Errorf("page 2 of size 1: %+v, %v; want b (c is newer)", res, err)
	}
	_, err = finder.Find(ctx, memories.Find{Tenant: "acme", Page: -1, PageSize: 5000})
	for _, field := range []string{"page", "page_size"} {
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("bad page: %v, want it to name %s", err, field)
		}
	}
}

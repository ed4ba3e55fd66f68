package teststore_test

import (
	"context"
	"testing"

	"engram/adapters/textanalysis"
	"engram/adapters/ulids"
	"engram/app/memories"
	"engram/domain/memory"
	"engram/ports"
	"engram/test/fakeclock"
	"engram/test/teststore"
	"time"
)

// Each test gets a database of its own: what one writes, another never sees.
func TestNew_givesEachTestItsOwnMigratedDatabase(t *testing.T) {
	t.Parallel()
	scope := memory.Scope{Tenant: "t1", User: "alice"}
	clock := fakeclock.New(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	first, second := teststore.New(t), teststore.New(t)
	svc := memories.New(first.IndexLexically(textanalysis.New(textanalysis.Options{})), clock, ulids.New(), memory.Policy{})
	if _, err := svc.Save(context.Background(), memories.Save{Scope: scope, Key: "coffee", Draft: memory.DraftInput{Type: "preference", Content: "likes flat white"}}); err != nil {
		t.Fatal(err)
	}
	if page, err := first.Memories.List(context.Background(), scope, ports.MemoryQuery{Limit: 10, Now: clock.Now()}); err != nil || len(page.Items) != 1 {
		t.Fatalf("first database: %d memories, %v; want 1", len(page.Items), err)
	}
	if page, err := second.Memories.List(context.Background(), scope, ports.MemoryQuery{Limit: 10, Now: clock.Now()}); err != nil || len(page.Items) != 0 {
		t.Fatalf("second database: %d memories, %v; want 0", len(page.Items), err)
	}
	if gen, err := first.Lexical.Generation(context.Background(), scope); err != nil || gen == 0 {
		t.Errorf("the save did not write its lexical document in its transaction: generation %d, %v", gen, err)
	}
}

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		teststore.New(b)
	}
}

package lifecycle_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"engram/app/lifecycle"
	"engram/domain/memory"
	"engram/test/teststore"
)

func TestSweep_expiresWhatPassedItsTTLOnce(t *testing.T) {
	t.Parallel()
	stores := teststore.New(t)
	testSweep(t, newStoreFixture(t, stores), stores.Memories)
}

func TestSweep_expiresWhatPassedItsTTLOnce_Postgres(t *testing.T) {
	t.Parallel()
	stores := teststore.NewPostgres(t)
	testSweep(t, newStoreFixture(t, stores), stores.Memories)
}

func testSweep(t *testing.T, f *fixture, finder lifecycle.ExpiredFinder) {
	ctx := context.Background()
	// Batch 2 so the sweep has to page through more than one batch.
	sweeper := lifecycle.NewSweeper(finder, f.memories, f.clock, f.ids, lifecycle.SweepOptions{Batch: 2})
	f.save(memory.MustParseKey("short.a"), "expires after one day", 3, 1)
	f.save(memory.MustParseKey("short.b"), "expires after one day too", 3, 1)
	f.save(memory.MustParseKey("short.c"), "and a third one", 3, 1)
	f.save(memory.MustParseKey("long"), "expires after a year", 3, 365)
	f.save(memory.MustParseKey("renewed"), "expires after one day but is saved again", 3, 1)
	other := memory.Scope{Tenant: "t2", User: "bob"}
	imp := 3
	ttl := 1
	if _, err := f.memories.Update(ctx, other, memory.MustParseKey("short.other"), func(cur *memory.Memory) (memory.Change, error) {
		d, _ := memory.ParseDraft(memory.DraftInput{Type: "fact", Content: "another tenant's", Importance: &imp, TTLDays: &ttl}, memory.Source{Channel: memory.ChannelTool})
		m, _ := memory.New(f.ids.New(), other, memory.MustParseKey("short.other"), d, memory.Policy{}, f.clock.Now())
		return memory.Change{Memory: m, Event: memory.NewEvent(f.ids.New(), memory.OpAdd, nil, m)}, nil
	}); err != nil {
		t.Fatal(err)
	}

	if n, err := sweeper.Sweep(ctx); err != nil || n != 0 {
		t.Fatalf("sweep before anything expired: %d, %v", n, err)
	}
	f.clock.Advance(23 * time.Hour)
	renew := 30
	d, _ := memory.ParseDraft(memory.DraftInput{Type: "fact", Content: "saved again with a new expiry", TTLDays: &renew}, memory.Source{Channel: memory.ChannelTool})
	if _, err := f.memories.Update(ctx, scope, memory.MustParseKey("renewed"), func(cur *memory.Memory) (memory.Change, error) {
		next, err := cur.Replace(d, memory.Policy{}, f.clock.Now())
		return memory.Change{Memory: next, Event: memory.NewEvent(f.ids.New(), memory.OpUpdate, cur, next)}, err
	}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(2 * time.Hour)

	n, err := sweeper.Sweep(ctx)
	if err != nil || n != 4 {
		t.Fatalf("sweep expired %d (%v), want the three short ones and the other tenant's", n, err)
	}
	for _, key := range []memory.Key{memory.MustParseKey("short.a"), memory.MustParseKey("short.b"), memory.MustParseKey("short.c")} {
		m, err := f.memories.Get(ctx, scope, key)
		if err != nil || m.Active() {
			t.Errorf("%s: active=%v err=%v, want deactivated", key, m.Active(), err)
		}
		events, _ := f.memories.History(ctx, scope, key)
		if ops := opsOf(events); !slices.Equal(ops, []memory.Op{memory.OpAdd, memory.OpExpire}) || events[1].Source.Channel != memory.ChannelConsolidation {
			t.Errorf("%s history %v", key, ops)
		}
		if m.Vector().Status != memory.VectorDirty {
			t.Errorf("%s vector %s: the indexer must drop its vector", key, m.Vector().Status)
		}
	}
	for _, key := range []memory.Key{memory.MustParseKey("long"), memory.MustParseKey("renewed")} {
		if m, _ := f.memories.Get(ctx, scope, key); !m.Active() {
			t.Errorf("%s was expired before its time", key)
		}
	}
	if n, err := sweeper.Sweep(ctx); err != nil || n != 0 {
		t.Errorf("second sweep: %d, %v; want nothing left", n, err)
	}
}

func opsOf(events []memory.Event) []memory.Op {
	out := make([]memory.Op, len(events))
	for i, e := range events {
		out[i] = e.Op
	}
	return out
}

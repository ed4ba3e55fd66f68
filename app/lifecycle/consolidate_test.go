package lifecycle_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"engram/adapters/ulids"
	"engram/app/lifecycle"
	"engram/domain/memory"
	"engram/ports"
	"engram/test/fakeclock"
	"engram/test/teststore"
)

var (
	scope = memory.Scope{Tenant: "t1", User: "alice"}
	start = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
)

type fixture struct {
	t        *testing.T
	clock    *fakeclock.Clock
	ids      ports.IDs
	memories ports.MemoryStore
	svc      *lifecycle.Service
	jobs     ports.JobStore
}

func newFixture(t *testing.T, memories ports.MemoryStore, jobs ports.JobStore, noise lifecycle.NoiseLister) *fixture {
	clock := fakeclock.New(start)
	ids := ulids.New()
	return &fixture{t: t, clock: clock, ids: ids, memories: memories, jobs: jobs,
		svc: lifecycle.New(jobs, memories, noise, clock, ids, lifecycle.Options{})}
}

// newStoreFixture is a fixture over the stores of one database.
func newStoreFixture(t *testing.T, stores *teststore.Stores) *fixture {
	return newFixture(t, stores.Memories, stores.Jobs, stores.Jobs)
}

func newSQLiteFixture(t *testing.T) *fixture { return newStoreFixture(t, teststore.New(t)) }

func (f *fixture) save(key memory.Key, content string, importance, ttlDays int) {
	f.t.Helper()
	in := memory.DraftInput{Type: "fact", Content: content, Importance: &importance}
	if ttlDays > 0 {
		in.TTLDays = &ttlDays
	}
	d, err := memory.ParseDraft(in, memory.Source{Channel: memory.ChannelTool})
	if err != nil {
		f.t.Fatal(err)
	}
	_, err = f.memories.Update(context.Background(), scope, key, func(cur *memory.Memory) (memory.Change, error) {
		m, err := memory.New(f.ids.New(), scope, key, d, memory.Policy{}, f.clock.Now())
		if err != nil {
			return memory.Change{}, err
		}
		return memory.Change{Memory: m, Event: memory.NewEvent(f.ids.New(), memory.OpAdd, nil, m)}, nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
	f.clock.Advance(time.Second)
}

func (f *fixture) ops(key memory.Key) []memory.Op {
	f.t.Helper()
	hist, err := f.memories.History(context.Background(), scope, key)
	if err != nil {
		f.t.Fatal(err)
	}
	var ops []memory.Op
	for _, e := range hist {
		ops = append(ops, e.Op)
		if e.Op != memory.OpAdd && e.Source.Channel != memory.ChannelConsolidation {
			f.t.Errorf("%s: %s event from channel %q", key, e.Op, e.Source.Channel)
		}
	}
	return ops
}

func (f *fixture) get(key memory.Key) memory.Memory {
	f.t.Helper()
	m, err := f.memories.Get(context.Background(), scope, key)
	if err != nil {
		f.t.Fatal(err)
	}
	return m
}

func testConsolidate(t *testing.T, f *fixture) {
	f.save(memory.MustParseKey("trip.plan"), "User plans a trip to Japan", 3, 1)
	f.save(memory.MustParseKey("tool-list"), "weather, calendar", 3, 0)
	f.save(memory.MustParseKey("reply-language"), "Answer in English", 3, 0)
	f.save(memory.MustParseKey("reply.language"), "Answer in Chinese", 3, 0) // said later: it wins
	f.save(memory.MustParseKey("music.jazz"), "User loves jazz music", 2, 0)
	f.save(memory.MustParseKey("likes.jazz"), "User loves jazz music!", 4, 0)
	f.save(memory.MustParseKey("home.city"), "User lives in Wuhan", 3, 0)
	f.clock.Advance(48 * time.Hour)

	counts, err := f.svc.Consolidate(context.Background(), scope)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"scanned": 6, "expired": 1, "noise_deleted": 1, "keys_normalised": 1, "merged": 1}
	for k, v := range want {
		if counts[k] != v {
			t.Errorf("counts %v, want %v", counts, want)
			break
		}
	}
	if ops := f.ops(memory.MustParseKey("trip.plan")); !slices.Equal(ops, []memory.Op{memory.OpAdd, memory.OpExpire}) {
		t.Errorf("trip.plan %v", ops)
	}
	if ops := f.ops(memory.MustParseKey("tool-list")); !slices.Equal(ops, []memory.Op{memory.OpAdd, memory.OpDelete}) {
		t.Errorf("tool-list %v", ops)
	}
	if ops := f.ops(memory.MustParseKey("reply-language")); !slices.Equal(ops, []memory.Op{memory.OpAdd, memory.OpDelete}) {
		t.Errorf("reply-language %v", ops)
	}
	if m := f.get(memory.MustParseKey("reply.language")); m.Content() != "Answer in Chinese" || !m.Active() ||
		!slices.Equal(f.ops(memory.MustParseKey("reply.language")), []memory.Op{memory.OpAdd, memory.OpMerge}) {
		t.Errorf("reply.language %+v, %v", m.State(), f.ops(memory.MustParseKey("reply.language")))
	}
	if m := f.get(memory.MustParseKey("likes.jazz")); !m.Active() || m.Importance() != 4 || !slices.Equal(f.ops(memory.MustParseKey("likes.jazz")), []memory.Op{memory.OpAdd, memory.OpMerge}) {
		t.Errorf("likes.jazz (the more important copy) %+v", m.State())
	}
	if m := f.get(memory.MustParseKey("music.jazz")); m.Active() {
		t.Errorf("music.jazz should be folded: %+v", m.State())
	}
	if ops := f.ops(memory.MustParseKey("home.city")); len(ops) != 1 {
		t.Errorf("home.city was touched: %v", ops)
	}

	again, err := f.svc.Consolidate(context.Background(), scope)
	if err != nil {
		t.Fatal(err)
	}
	if again["expired"]+again["noise_deleted"]+again["keys_normalised"]+again["merged"] != 0 {
		t.Errorf("a second run changed things: %v", again)
	}
}

func TestConsolidate_expiresDeletesNoiseAndMergesDuplicates(t *testing.T) {
	t.Parallel()
	testConsolidate(t, newSQLiteFixture(t))
}

func TestConsolidate_expiresDeletesNoiseAndMergesDuplicates_Postgres(t *testing.T) {
	t.Parallel()
	testConsolidate(t, newStoreFixture(t, teststore.NewPostgres(t)))
}

func TestJobRunner_runsARequestedConsolidation(t *testing.T) {
	t.Parallel()
	f := newSQLiteFixture(t)
	f.save(memory.MustParseKey("music.jazz"), "User loves jazz music", 2, 0)
	f.save(memory.MustParseKey("likes.jazz"), "User loves jazz music", 4, 0)
	job, err := f.svc.RequestConsolidation(context.Background(), scope)
	if err != nil {
		t.Fatal(err)
	}
	same, _ := f.svc.RequestConsolidation(context.Background(), scope)
	if same.ID != job.ID {
		t.Errorf("a second request while queued made job %s, want %s", same.ID, job.ID)
	}
	r := lifecycle.NewJobRunner(f.svc, lifecycle.JobRunnerOptions{Worker: "w"})
	if n, err := r.Tick(context.Background()); n != 1 || err != nil {
		t.Fatalf("tick %d, %v", n, err)
	}
	got, err := f.svc.Job(context.Background(), "t1", job.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != ports.JobDone || got.Counts["merged"] != 1 || got.FinishedAt.IsZero() || got.Attempts != 1 {
		t.Errorf("job %+v", got)
	}
	if _, err := f.svc.Job(context.Background(), "t2", job.ID); err == nil {
		t.Error("another tenant read the job")
	}
}

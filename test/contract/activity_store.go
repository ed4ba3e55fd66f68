package contract

import (
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"engram/domain/memory"
	"engram/domain/profile"
	"engram/ports"
)

// RunActivityStore is the contract every ports.ActivityStore adapter must pass.
// open returns an empty store; each case opens its own.
func RunActivityStore(t *testing.T, open func(t *testing.T) ports.ActivityStore) {
	t.Helper()
	now := time.Date(2026, 12, 1, 10, 0, 0, 987654321, time.UTC)
	scope := memory.Scope{Tenant: "acme", User: "u-1"}
	event := func(t *testing.T, sc memory.Scope, id, kind, flow, name string, hoursAgo int, dur *float64) profile.Activity {
		t.Helper()
		a, err := profile.NewActivity(sc, profile.ActivityInput{EventID: id, Kind: kind, At: now.Add(-time.Duration(hoursAgo) * time.Hour),
			FlowID: flow, FlowName: name, DurationH: dur}, now)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	hours := func(h float64) *float64 { return &h }

	t.Run("an event id is idempotent; other content under it is a conflict", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		a := event(t, scope, "e1", "task_completed", "f1", "周报生成", 1, hours(2.5))
		stored, created, err := store.RecordActivity(ctx, a)
		if err != nil || !created {
			t.Fatalf("first: created %v err %v", created, err)
		}
		want := a
		want.At, want.ReceivedAt = a.At.UTC().Truncate(time.Microsecond), a.ReceivedAt.UTC().Truncate(time.Microsecond)
		if !reflect.DeepEqual(stored, want) {
			t.Errorf("stored %+v, want %+v", stored, want)
		}
		retry := a
		retry.ReceivedAt = now.Add(time.Minute)
		again, created, err := store.RecordActivity(ctx, retry)
		if err != nil || created || !again.ReceivedAt.Equal(want.ReceivedAt) {
			t.Errorf("retry: %+v created %v err %v; want the stored event", again, created, err)
		}
		other := event(t, scope, "e1", "task_completed", "f1", "周报生成", 1, hours(3))
		_, _, err = store.RecordActivity(ctx, other)
		var conflict *ports.ActivityConflictError
		if !errors.As(err, &conflict) || !errors.Is(err, ports.ErrConflict) || conflict.EventID != "e1" {
			t.Errorf("other content: err = %v, want an ActivityConflictError", err)
		}
		elsewhere := event(t, memory.Scope{Tenant: "acme", User: "u-2"}, "e1", "task_created", "", "", 1, nil)
		if _, created, err := store.RecordActivity(ctx, elsewhere); err != nil || !created {
			t.Errorf("the same id for another user: created %v err %v", created, err)
		}
		tallies, err := store.ActivityTallies(ctx, scope)
		if err != nil || len(tallies) != 1 || tallies[0].Count != 1 || tallies[0].DurationSum != 2.5 {
			t.Errorf("tallies %+v %v", tallies, err)
		}
	})

	t.Run("tallies sum by kind and flow, in kind then flow order", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		for _, a := range []profile.Activity{
			event(t, scope, "1", "task_assigned", "", "", 5, nil),
			event(t, scope, "2", "task_assigned", "", "", 4, nil),
			event(t, scope, "3", "task_assigned", "f1", "", 4, nil),
			event(t, scope, "4", "task_completed", "f1", "Weekly", 3, hours(1.5)),
			event(t, scope, "5", "task_completed", "f1", "", 2, nil),
			event(t, scope, "6", "task_completed", "f1", "Weekly report", 1, hours(0.25)),
			event(t, scope, "7", "workflow_used", "f2", "任务分配", 6, nil),
			event(t, scope, "8", "workflow_used", "f2", "任务分配 v2", 2, nil),
			event(t, scope, "9", "task_created", "", "", 7, nil),
			event(t, memory.Scope{Tenant: "globex", User: "u-1"}, "10", "task_created", "", "", 1, nil),
		} {
			if _, _, err := store.RecordActivity(ctx, a); err != nil {
				t.Fatal(err)
			}
		}
		got, err := store.ActivityTallies(ctx, scope)
		if err != nil {
			t.Fatal(err)
		}
		at := func(h int) time.Time { return now.Add(-time.Duration(h) * time.Hour).UTC().Truncate(time.Microsecond) }
		want := []profile.ActivityTally{
			{Kind: profile.ActivityTaskAssigned, Count: 2, LastAt: at(4)},
			{Kind: profile.ActivityTaskAssigned, FlowID: "f1", Count: 1, LastAt: at(4)},
			{Kind: profile.ActivityTaskCompleted, FlowID: "f1", FlowName: "Weekly report", Count: 3, DurationSum: 1.75, DurationCount: 2, LastAt: at(1)},
			{Kind: profile.ActivityTaskCreated, Count: 1, LastAt: at(7)},
			{Kind: profile.ActivityWorkflowUsed, FlowID: "f2", FlowName: "任务分配 v2", Count: 2, LastAt: at(2)},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("tallies\n %+v\nwant\n %+v", got, want)
		}
		counts, err := mustPurger(t, store).PurgeUser(ctx, scope)
		if err != nil || counts["activity_events"] != 9 {
			t.Fatalf("purge: %v %v", counts, err)
		}
		if got, _ := store.ActivityTallies(ctx, scope); len(got) != 0 {
			t.Errorf("after purge: %v", got)
		}
		if got, _ := store.ActivityTallies(ctx, memory.Scope{Tenant: "globex", User: "u-1"}); len(got) != 1 {
			t.Errorf("purge reached another tenant: %v", got)
		}
	})

	t.Run("concurrent posts of one event store it once", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		a := event(t, scope, "race", "task_created", "", "", 1, nil)
		var wg sync.WaitGroup
		var mu sync.Mutex
		createdN := 0
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, created, err := store.RecordActivity(ctx, a)
				if err != nil {
					t.Error(err)
					return
				}
				if created {
					mu.Lock()
					createdN++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		tallies, _ := store.ActivityTallies(ctx, scope)
		if createdN != 1 || len(tallies) != 1 || tallies[0].Count != 1 {
			t.Errorf("created %d times, tallies %+v", createdN, tallies)
		}
	})
}

package addevent

import (
	"testing"
	"time"

	"engram/domain/conversation"
	"engram/domain/memory"
)

var (
	scope = memory.Scope{Tenant: "t", User: "u"}
	now   = time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
)

func event(memoryID string, op memory.Op, before, after string) memory.Event {
	e := memory.Event{MemoryID: memoryID, Op: op, After: memory.State{ID: memoryID, Content: after, Active: op != memory.OpDelete}}
	if before != "" {
		e.Before = &memory.State{ID: memoryID, Content: before, Active: true}
	}
	return e
}

func TestResultsOf(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		events []memory.Event
		want   []Change
	}{
		{"an add", []memory.Event{event("m1", memory.OpAdd, "", "a")}, []Change{ChangeAdd}},
		{"added then appended stays an add", []memory.Event{event("m1", memory.OpAdd, "", "a"), event("m1", memory.OpAppend, "a", "a\nb")}, []Change{ChangeAdd}},
		{"added then deleted is a delete", []memory.Event{event("m1", memory.OpAdd, "", "a"), event("m1", memory.OpDelete, "a", "a")}, []Change{ChangeDelete}},
		{"content replaced", []memory.Event{event("m1", memory.OpUpdate, "a", "b")}, []Change{ChangeUpdate}},
		{"renewed only is a noop", []memory.Event{event("m1", memory.OpUpdate, "a", "a")}, []Change{ChangeNoop}},
		{"merged is an update", []memory.Event{event("m1", memory.OpMerge, "a", "a2")}, []Change{ChangeUpdate}},
		{"one result per memory, first changed first", []memory.Event{
			event("m2", memory.OpAdd, "", "x"), event("m1", memory.OpUpdate, "a", "b"), event("m2", memory.OpUpdate, "x", "x"),
		}, []Change{ChangeAdd, ChangeUpdate}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := ResultsOf(c.events)
			if len(got) != len(c.want) {
				t.Fatalf("results %+v, want %v", got, c.want)
			}
			for i := range got {
				if got[i].Change != c.want[i] {
					t.Errorf("result %d: %s, want %s", i, got[i].Change, c.want[i])
				}
			}
		})
	}
	last := ResultsOf([]memory.Event{event("m1", memory.OpAdd, "", "a"), event("m1", memory.OpAppend, "a", "a\nb")})
	if last[0].Memory.Content != "a\nb" || last[0].MemoryID != "m1" {
		t.Errorf("result memory %+v, want the last after", last[0])
	}
}

func TestRecord_Resolve(t *testing.T) {
	t.Parallel()
	msg := func(id string, st conversation.Status, retry bool) conversation.Message {
		m := conversation.Message{ID: id, Status: st, Error: "boom"}
		if retry {
			m.ProcessAfter = now.Add(time.Minute)
		}
		return m
	}
	cases := []struct {
		name string
		msgs []conversation.Message
		want Status
	}{
		{"a message waits", []conversation.Message{msg("m1", conversation.StatusProcessed, false), msg("m2", conversation.StatusPending, true)}, StatusPending},
		{"a failure will be retried", []conversation.Message{msg("m1", conversation.StatusFailed, true), msg("m2", conversation.StatusSkipped, false)}, StatusPending},
		{"every message extracted or skipped", []conversation.Message{msg("m1", conversation.StatusProcessed, false), msg("m2", conversation.StatusSkipped, false)}, StatusSucceeded},
		{"a failure with no retry left", []conversation.Message{msg("m1", conversation.StatusFailed, false), msg("m2", conversation.StatusProcessed, false)}, StatusFailed},
		{"a message erased since counts as done", []conversation.Message{msg("m1", conversation.StatusProcessed, false)}, StatusSucceeded},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r, err := New("a1", scope, "c1", []string{"m1", "m2"}, now)
			if err != nil {
				t.Fatal(err)
			}
			next, changed := r.Resolve(c.msgs, []memory.Event{event("x", memory.OpAdd, "", "a")}, now.Add(time.Second))
			if next.Status != c.want || changed != (c.want != StatusPending) {
				t.Fatalf("status %s changed %v, want %s", next.Status, changed, c.want)
			}
			if c.want == StatusFailed && next.Error != "boom" {
				t.Errorf("error %q, want the message's", next.Error)
			}
			if c.want != StatusPending && (len(next.Results) != 1 || !next.UpdatedAt.Equal(now.Add(time.Second))) {
				t.Errorf("finished add %+v, want its result and the time it finished", next)
			}
			if again, moved := next.Resolve(nil, nil, now.Add(time.Hour)); next.Done() && (moved || again.Status != next.Status) {
				t.Errorf("a finished add moved again: %+v", again)
			}
		})
	}
	if _, err := New("a1", scope, "c1", nil, now); err == nil {
		t.Error("an add without messages was accepted")
	}
}

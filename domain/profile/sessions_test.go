package profile

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"
)

func TestFavouriteWorkflows_fromSessionsAndActivity(t *testing.T) {
	t.Parallel()
	t1, t2 := testNow.Add(-2*time.Hour), testNow.Add(-time.Hour)
	weekly := func(n int, at time.Time) ActivityTally {
		return ActivityTally{Kind: ActivityWorkflowUsed, FlowID: "weekly", FlowName: "Weekly report", Count: n, LastAt: at}
	}
	session := func(flow, name string, messages int64, at time.Time) SessionFact {
		return SessionFact{FlowID: flow, FlowName: name, Messages: messages, LastActiveAt: at}
	}
	var many []SessionFact
	for i := range 7 {
		many = append(many, session(fmt.Sprintf("f%d", i), "", int64(2*(i+1)), t1))
	}
	for _, tc := range []struct {
		name     string
		tallies  []ActivityTally
		sessions []SessionFact
		want     []WorkflowCount
		runs     int
	}{
		{"sessions alone: a flow's turns over its sessions", nil,
			[]SessionFact{session("weekly", "周报生成", 8, t1), session("weekly", "周报生成", 6, t2), session("assign", "任务分配", 2, t2)},
			[]WorkflowCount{{"weekly", "周报生成", 7}, {"assign", "任务分配", 1}}, 8},
		{"both sources seeing the same runs count them once", []ActivityTally{weekly(5, t1)},
			[]SessionFact{session("weekly", "", 8, t2)},
			[]WorkflowCount{{"weekly", "Weekly report", 5}}, 5},
		{"the sessions saw more runs than were reported", []ActivityTally{weekly(2, t1)},
			[]SessionFact{session("weekly", "", 10, t2)},
			[]WorkflowCount{{"weekly", "Weekly report", 5}}, 5},
		{"flows of one source only are kept", []ActivityTally{weekly(3, t1)},
			[]SessionFact{session("assign", "任务分配", 4, t2)},
			[]WorkflowCount{{"weekly", "Weekly report", 3}, {"assign", "任务分配", 2}}, 5},
		{"the session's later name wins", []ActivityTally{weekly(1, t1)},
			[]SessionFact{session("weekly", "周报", 2, t2)},
			[]WorkflowCount{{"weekly", "周报", 1}}, 1},
		{"the event's later name wins", []ActivityTally{weekly(1, t2)},
			[]SessionFact{session("weekly", "周报", 2, t1)},
			[]WorkflowCount{{"weekly", "Weekly report", 1}}, 1},
		{"at most five favourites, every run counted", nil, many,
			[]WorkflowCount{{"f6", "", 7}, {"f5", "", 6}, {"f4", "", 5}, {"f3", "", 4}, {"f2", "", 3}}, 28},
		{"nothing", nil, nil, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, runs := FavouriteWorkflows(tc.tallies, tc.sessions)
			if runs != tc.runs || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("favourites = %v (%d runs), want %v (%d)", got, runs, tc.want, tc.runs)
			}
			again, _ := FavouriteWorkflows(reversed(tc.tallies), reversed(tc.sessions))
			if !reflect.DeepEqual(again, got) {
				t.Errorf("the inputs reversed give %v", again)
			}
		})
	}
}

func TestConversations_joinsStoredConversationsWithSessions(t *testing.T) {
	t.Parallel()
	early, late := testNow.Add(-48*time.Hour), testNow.Add(-time.Hour)
	sessions := func(n int, at time.Time) []SessionFact {
		out := make([]SessionFact, n)
		for i := range out {
			out[i] = SessionFact{FlowID: "f", Messages: 2, LastActiveAt: at.Add(-time.Duration(i) * time.Minute)}
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		stored   int
		last     time.Time
		sessions []SessionFact
		want     int
		wantLast time.Time
	}{
		{"sessions not yet in the message store", 3, early, sessions(5, late), 5, late},
		{"the message store remembers expired sessions", 10, late, sessions(2, early), 10, late},
		{"no sessions", 4, early, nil, 4, early},
		{"only sessions", 0, time.Time{}, sessions(1, late), 1, late},
	} {
		n, last := Conversations(tc.stored, tc.last, tc.sessions)
		if n != tc.want || !last.Equal(tc.wantLast) {
			t.Errorf("%s: %d at %v, want %d at %v", tc.name, n, last, tc.want, tc.wantLast)
		}
	}
}

// A user known only from record_exchange: their sessions give the conversation
// count, the favourite workflows and the workflow-driven style.
func TestDerive_sessionsAreASourceOfWorkflowsAndConversations(t *testing.T) {
	t.Parallel()
	last := testNow.Add(-10 * time.Minute)
	in := Inputs{Now: testNow, Sessions: []SessionFact{
		{FlowID: "weekly", FlowName: "周报生成", Messages: 16, LastActiveAt: last},
		{FlowID: "assign", FlowName: "任务分配", Messages: 6, LastActiveAt: last.Add(-time.Hour)},
		{FlowID: "weekly", FlowName: "周报生成", Messages: 4, LastActiveAt: last.Add(-2 * time.Hour)},
	}}
	got := Derive(in, fakeTerms)
	want := Derived{
		Conversations:      3,
		WorkflowsUsed:      13,
		FavouriteWorkflows: []WorkflowCount{{"weekly", "周报生成", 10}, {"assign", "任务分配", 3}},
		WorkStyle:          []StyleTag{StyleWorkflowDriven},
		LastConversationAt: last,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func reversed[T any](s []T) []T {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

package profile

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The messages of NewActivity's errors are what a client reads to fix a request;
// every check, its order and its wording are part of the contract.
func TestNewActivity_errorMessagesSayWhatToFix(t *testing.T) {
	t.Parallel()
	dur := func(h float64) *float64 { return &h }
	long := func(n int) string { return strings.Repeat("x", n) }
	for _, tc := range []struct {
		name string
		in   ActivityInput
		want string
	}{
		{"everything missing", ActivityInput{},
			"invalid event_id: must be 1 to 128 characters (not only spaces), got 0; kind: must be one of task_assigned, task_created, task_completed, workflow_used; at: is required: when it happened (RFC 3339)"},
		{"event id too long", ActivityInput{EventID: long(129), Kind: "task_created", At: testNow},
			"invalid event_id: must be 1 to 128 characters (not only spaces), got 129"},
		{"before 1970", ActivityInput{EventID: "e", Kind: "task_created", At: time.Date(1969, 12, 31, 23, 0, 0, 0, time.UTC)},
			"invalid at: must not be before 1970"},
		{"too far ahead", ActivityInput{EventID: "e", Kind: "task_created", At: testNow.Add(MaxFutureSkew + time.Second)},
			"invalid at: must not be more than a day in the future"},
		{"flow id and name too long", ActivityInput{EventID: "e", Kind: "task_created", At: testNow, FlowID: long(129), FlowName: long(101)},
			"invalid flow_id: must be at most 128 characters, got 129; flow_name: must be at most 100 characters, got 101"},
		{"workflow without a flow", ActivityInput{EventID: "e", Kind: "workflow_used", At: testNow, FlowID: "  "},
			"invalid flow_id: is required for workflow_used: which workflow was run"},
		{"duration on another kind", ActivityInput{EventID: "e", Kind: "task_created", At: testNow, DurationH: dur(1)},
			"invalid duration_h: is only for task_completed events (hours the task took)"},
		{"duration too long", ActivityInput{EventID: "e", Kind: "task_completed", At: testNow, DurationH: dur(MaxDurationHours + 1)},
			"invalid duration_h: must be between 0 and 8760 hours"},
		{"duration NaN", ActivityInput{EventID: "e", Kind: "task_completed", At: testNow, DurationH: dur(math.NaN())},
			"invalid duration_h: must be between 0 and 8760 hours"},
	} {
		_, err := NewActivity(alice, tc.in, testNow)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestNewActivity_keepsTrimmedFieldsInUTC(t *testing.T) {
	t.Parallel()
	zero, limit := 0.0, float64(MaxDurationHours)
	shanghai := time.FixedZone("CST", 8*3600)
	for _, tc := range []struct {
		name string
		in   ActivityInput
		want Activity
	}{
		{"a workflow run at the edge of the skew", ActivityInput{EventID: " e1 ", Kind: " workflow_used ", At: testNow.Add(MaxFutureSkew).In(shanghai), FlowID: " f ", FlowName: " 周报 "},
			Activity{Scope: alice, EventID: "e1", Kind: ActivityWorkflowUsed, At: testNow.Add(MaxFutureSkew).UTC(), FlowID: "f", FlowName: "周报", ReceivedAt: testNow}},
		{"a zero duration", ActivityInput{EventID: "e2", Kind: "task_completed", At: testNow, DurationH: &zero},
			Activity{Scope: alice, EventID: "e2", Kind: ActivityTaskCompleted, At: testNow.UTC(), HasDuration: true, ReceivedAt: testNow}},
		{"the longest duration", ActivityInput{EventID: "e3", Kind: "task_completed", At: testNow, DurationH: &limit},
			Activity{Scope: alice, EventID: "e3", Kind: ActivityTaskCompleted, At: testNow.UTC(), DurationH: limit, HasDuration: true, ReceivedAt: testNow}},
		{"the epoch itself", ActivityInput{EventID: "e4", Kind: "task_assigned", At: time.Unix(0, 0)},
			Activity{Scope: alice, EventID: "e4", Kind: ActivityTaskAssigned, At: time.Unix(0, 0).UTC(), ReceivedAt: testNow}},
	} {
		got, err := NewActivity(alice, tc.in, testNow)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
}

func TestWorkStyle_thresholdsAndWindow(t *testing.T) {
	t.Parallel()
	at := func(daysAgo, hour int) MessageFact {
		d := testNow.AddDate(0, 0, -daysAgo)
		return MessageFact{At: time.Date(d.Year(), d.Month(), d.Day(), hour, 0, 0, 0, time.UTC)}
	}
	repeat := func(n int, m func(i int) MessageFact) []MessageFact {
		var out []MessageFact
		for i := range n {
			out = append(out, m(i))
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		tasks TaskStats
		runs  int
		msgs  []MessageFact
		want  []StyleTag
	}{
		{"fast at exactly eight hours", TaskStats{Completed: 3, AvgCompletionHours: 8}, 0, nil, []StyleTag{StyleFastTurnaround}},
		{"no average is not fast", TaskStats{Completed: 9, AvgCompletionHours: 0}, 0, nil, nil},
		{"reliable at exactly the rate", TaskStats{Assigned: 5, CompletionRate: 0.9}, 0, nil, []StyleTag{StyleReliable}},
		{"reliable needs five assigned", TaskStats{Assigned: 4, CompletionRate: 1}, 0, nil, nil},
		{"workflow-driven at ten runs", TaskStats{}, 10, nil, []StyleTag{StyleWorkflowDriven}},
		{"half early is an early bird", TaskStats{}, 0,
			repeat(10, func(i int) MessageFact { return at(i+1, map[bool]int{true: 5, false: 12}[i%2 == 0]) }), []StyleTag{StyleEarlyBird}},
		{"09:00 is not early, 02:00 is not night", TaskStats{}, 0,
			repeat(10, func(i int) MessageFact { return at(i+1, map[bool]int{true: 9, false: 2}[i%2 == 0]) }), nil},
		{"a third at 21:00 to 01:00 is a night owl", TaskStats{}, 0,
			repeat(10, func(i int) MessageFact { return at(i+1, []int{21, 1, 0, 12, 13, 14, 15, 16, 17, 18}[i]) }), []StyleTag{StyleNightOwl}},
		{"messages from the future and past the window do not count", TaskStats{}, 0,
			append(repeat(9, func(i int) MessageFact { return at(i+1, 7) }), MessageFact{At: testNow.Add(time.Hour)}, MessageFact{At: testNow.Add(-WorkHoursWindow - time.Hour)}), nil},
		{"early and night at once", TaskStats{}, 0,
			repeat(10, func(i int) MessageFact { return at(i+1, []int{6, 6, 6, 6, 6, 22, 22, 23, 23, 12}[i]) }), []StyleTag{StyleEarlyBird, StyleNightOwl}},
	} {
		if got := WorkStyle(tc.tasks, tc.runs, tc.msgs, testNow, time.UTC); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

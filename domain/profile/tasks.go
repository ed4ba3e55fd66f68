package profile

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// TaskStatistics sums task events: how many tasks were assigned to and created by
// the user, how many they completed, the mean hours of the completions that carry
// a duration, and completed / assigned (at most 1, 0 with nothing assigned).
func TaskStatistics(tallies []ActivityTally) TaskStats {
	var st TaskStats
	var hours float64
	var timed int
	for _, t := range tallies {
		switch t.Kind {
		case ActivityTaskAssigned:
			st.Assigned += t.Count
		case ActivityTaskCreated:
			st.Created += t.Count
		case ActivityTaskCompleted:
			st.Completed += t.Count
			hours += t.DurationSum
			timed += t.DurationCount
		}
	}
	if timed > 0 {
		st.AvgCompletionHours = round2(hours / float64(timed))
	}
	if st.Assigned > 0 {
		st.CompletionRate = round2(min(1, float64(st.Completed)/float64(st.Assigned)))
	}
	return st
}

// FavouriteWorkflows returns the most used workflows (most runs first, then flow
// id), at most MaxFavourites, and the total number of workflow runs.
//
// Runs come from two sources that usually see the same runs: workflow_used
// events, and the turns of the user's sessions with the flow (an agent records one
// exchange per run of a flow, so a session's turns are its runs). A flow counts
// the larger of the two, never their sum, so a client that does both is not
// counted twice. Its name is the latest one either source gave.
func FavouriteWorkflows(tallies []ActivityTally, sessions []SessionFact) ([]WorkflowCount, int) {
	byFlow := map[string]*flowRuns{}
	runsOf := func(flow string) *flowRuns {
		r, ok := byFlow[flow]
		if !ok {
			r = &flowRuns{}
			byFlow[flow] = r
		}
		return r
	}
	for _, t := range tallies {
		if t.Kind == ActivityWorkflowUsed && t.FlowID != "" {
			r := runsOf(t.FlowID)
			r.events += t.Count
			r.name(t.FlowName, t.LastAt)
		}
	}
	for _, s := range sessions {
		if s.FlowID != "" {
			r := runsOf(s.FlowID)
			r.turns += s.Turns()
			r.name(s.FlowName, s.LastActiveAt)
		}
	}
	out := make([]WorkflowCount, 0, len(byFlow))
	total := 0
	for flow, r := range byFlow {
		if n := max(r.events, r.turns); n > 0 {
			out = append(out, WorkflowCount{FlowID: flow, FlowName: r.flowName, Count: n})
			total += n
		}
	}
	slices.SortFunc(out, func(a, b WorkflowCount) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.FlowID, b.FlowID)
	})
	if len(out) > MaxFavourites {
		out = out[:MaxFavourites]
	}
	if len(out) == 0 {
		out = nil
	}
	return out, total
}

// flowRuns are one flow's runs by source, and its latest name.
type flowRuns struct {
	events, turns int
	flowName      string
	namedAt       time.Time
}

// name keeps the latest non-empty name; of two given at one time, the greater,
// so the result does not depend on the order of the inputs.
func (r *flowRuns) name(name string, at time.Time) {
	if name == "" {
		return
	}
	if r.flowName == "" || at.After(r.namedAt) || at.Equal(r.namedAt) && name > r.flowName {
		r.flowName, r.namedAt = name, at
	}
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

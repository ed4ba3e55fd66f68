package profile

import (
	"cmp"
	"math"
	"slices"
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
func FavouriteWorkflows(tallies []ActivityTally) ([]WorkflowCount, int) {
	byFlow := map[string]*WorkflowCount{}
	var order []string
	total := 0
	for _, t := range tallies {
		if t.Kind != ActivityWorkflowUsed || t.FlowID == "" {
			continue
		}
		total += t.Count
		w, ok := byFlow[t.FlowID]
		if !ok {
			w = &WorkflowCount{FlowID: t.FlowID}
			byFlow[t.FlowID] = w
			order = append(order, t.FlowID)
		}
		w.Count += t.Count
		if t.FlowName != "" {
			w.FlowName = t.FlowName
		}
	}
	out := make([]WorkflowCount, 0, len(order))
	for _, id := range order {
		out = append(out, *byFlow[id])
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

func round2(x float64) float64 { return math.Round(x*100) / 100 }

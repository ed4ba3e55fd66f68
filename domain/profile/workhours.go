package profile

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// WorkHours finds the hours of the day (in loc) in which the user writes: the
// fewest hours that hold WorkHourCoverage of their messages of the last
// WorkHoursWindow, merged into ranges. Fewer than MinWorkHourSample messages give
// none.
func WorkHours(msgs []MessageFact, now time.Time, loc *time.Location) []HourRange {
	var perHour [24]int
	total := 0
	for _, m := range msgs {
		if m.At.After(now) || now.Sub(m.At) > WorkHoursWindow {
			continue
		}
		perHour[m.At.In(loc).Hour()]++
		total++
	}
	if total < MinWorkHourSample {
		return nil
	}
	hours := make([]int, 24)
	for h := range hours {
		hours[h] = h
	}
	// Busiest first; ties by the earlier hour, so the result is stable.
	slices.SortStableFunc(hours, func(a, b int) int { return cmp.Compare(perHour[b], perHour[a]) })
	chosen := make([]bool, 24)
	covered := 0
	for _, h := range hours {
		if float64(covered) >= WorkHourCoverage*float64(total) || perHour[h] == 0 {
			break
		}
		chosen[h] = true
		covered += perHour[h]
	}
	return hourRanges(chosen)
}

// hourRanges merges chosen hours into ranges; a range running past midnight is one
// range (22–02).
func hourRanges(chosen []bool) []HourRange {
	var out []HourRange
	for h := 0; h < 24; h++ {
		if !chosen[h] || (h > 0 && chosen[h-1]) {
			continue
		}
		end := h
		for end < 24 && chosen[end] {
			end++
		}
		out = append(out, HourRange{From: h, To: end})
	}
	// Join the evening range with the one starting at midnight.
	if n := len(out); n > 1 && out[0].From == 0 && out[n-1].To == 24 {
		out[n-1].To = out[0].To
		out = out[1:]
	}
	return out
}

// String is "09:00-12:00"; a range past midnight reads "22:00-02:00", one up to
// midnight "18:00-24:00".
func (r HourRange) String() string {
	return fmt.Sprintf("%02d:00-%02d:00", r.From, r.To)
}

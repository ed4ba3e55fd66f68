package profile

import "time"

// StyleTag is a work-style tag engram derives from behaviour; declared tags are
// free text, derived ones are codes shown in the profile's language.
type StyleTag string

const (
	StyleFastTurnaround    StyleTag = "fast_turnaround"   // tasks done quickly
	StyleReliable          StyleTag = "reliable_delivery" // nearly every assigned task completed
	StyleEarlyBird         StyleTag = "early_bird"        // writes mostly before 09:00
	StyleNightOwl          StyleTag = "night_owl"         // writes late in the evening
	StyleWorkflowDriven    StyleTag = "workflow_driven"   // runs workflows a lot
	minStyleCompletions             = 3
	minStyleAssigned                = 5
	minStyleMessages                = 10
	fastTurnaroundHours             = 8
	reliableRate                    = 0.9
	workflowDrivenRuns              = 10
	earlyShare, nightShare          = 0.5, 0.3
)

var styleLabels = map[StyleTag][2]string{ // zh, en
	StyleFastTurnaround: {"快速响应", "fast turnaround"},
	StyleReliable:       {"交付可靠", "reliable delivery"},
	StyleEarlyBird:      {"习惯早起工作", "early bird"},
	StyleNightOwl:       {"常在夜间工作", "night owl"},
	StyleWorkflowDriven: {"善用工作流", "workflow-driven"},
}

// Label is the tag in the language (Chinese or English, see IsEnglish).
func (t StyleTag) Label(lang string) string {
	l, ok := styleLabels[t]
	if !ok {
		return string(t)
	}
	if IsEnglish(lang) {
		return l[1]
	}
	return l[0]
}

// WorkStyle derives style tags from the task statistics, the number of workflow
// runs and when the user writes (in loc). Each needs enough evidence: a few quick
// tasks are luck, not a style.
func WorkStyle(tasks TaskStats, workflowRuns int, msgs []MessageFact, now time.Time, loc *time.Location) []StyleTag {
	out := taskStyles(tasks)
	out = append(out, writingHourStyles(msgs, now, loc)...)
	if workflowRuns >= workflowDrivenRuns {
		out = append(out, StyleWorkflowDriven)
	}
	return out
}

// taskStyles reads speed and reliability from the task statistics.
func taskStyles(tasks TaskStats) []StyleTag {
	var out []StyleTag
	if tasks.Completed >= minStyleCompletions && tasks.AvgCompletionHours > 0 && tasks.AvgCompletionHours <= fastTurnaroundHours {
		out = append(out, StyleFastTurnaround)
	}
	if tasks.Assigned >= minStyleAssigned && tasks.CompletionRate >= reliableRate {
		out = append(out, StyleReliable)
	}
	return out
}

// writingHourStyles reads early-bird and night-owl habits from the hours of the
// recent messages; only the work-hours window counts, as old habits fade.
func writingHourStyles(msgs []MessageFact, now time.Time, loc *time.Location) []StyleTag {
	early, night, total := 0, 0, 0
	for _, m := range msgs {
		if m.At.After(now) || now.Sub(m.At) > WorkHoursWindow {
			continue
		}
		total++
		h := m.At.In(loc).Hour()
		if isEarlyHour(h) {
			early++
		} else if isNightHour(h) {
			night++
		}
	}
	if total < minStyleMessages {
		return nil
	}
	var out []StyleTag
	if float64(early) >= earlyShare*float64(total) {
		out = append(out, StyleEarlyBird)
	}
	if float64(night) >= nightShare*float64(total) {
		out = append(out, StyleNightOwl)
	}
	return out
}

func isEarlyHour(h int) bool { return h >= 5 && h < 9 }

// isNightHour counts the small hours up to 02:00 as the evening before.
func isNightHour(h int) bool { return h >= 21 || h < 2 }

package profile

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Expertise weights and bounds.
const (
	cueWeight          = 3 // the user said they are good at it
	minFlowCompletions = 3 // tasks completed in a workflow before it counts as expertise
	maxAreaRunes       = 30
	maxAreasPerCue     = 3
)

// expertiseCues open a statement of skill; what follows, up to the end of the
// clause, names the areas ("I'm good at SQL and data modelling", "擅长项目管理、数据分析").
var expertiseCues = []string{
	"expert in ", "expertise in ", "good at ", "skilled in ", "skilled at ", "specialize in ", "specialise in ",
	"specializes in ", "specialises in ", "specialized in ", "specialised in ", "experienced in ", "experienced with ",
	"proficient in ", "proficient at ", "proficient with ", "strong in ", "fluent in ",
	"擅长", "精通", "熟悉", "专长是", "专长", "专业是", "拿手",
}

// clauseEnds end the list after a cue; listSeparators split it into areas.
var (
	clauseEnds     = []string{".", ";", "!", "?", "。", "；", "！", "？", "，但", "，因为", " but ", " because ", " although ", "\n"}
	listSeparators = []string{", and ", ", ", " and ", " & ", " / ", "、", "，", "以及", "和", "与", "及"}
)

// Expertise finds the user's areas of expertise: what their memories say they are
// good at (personal memories aside, see IsPersonalMemory), and the workflows in
// which they completed tasks again and again (shown by name). Heaviest first, at
// most MaxExpertise, each once (case-insensitively).
func Expertise(memories []MemoryFact, tallies []ActivityTally) []string {
	type area struct {
		name   string
		weight int
		order  int
	}
	areas := map[string]*area{}
	add := func(name string, w int) {
		name = strings.TrimSpace(name)
		if name == "" || utf8.RuneCountInString(name) > maxAreaRunes {
			return
		}
		k := strings.ToLower(name)
		if a, ok := areas[k]; ok {
			a.weight += w
			return
		}
		areas[k] = &area{name: name, weight: w, order: len(areas)}
	}
	for _, m := range memories {
		if IsPersonalMemory(m) {
			continue
		}
		for _, a := range cueAreas(m.Content) {
			add(a, cueWeight)
		}
	}
	for _, f := range repeatedFlows(tallies) {
		add(cmp.Or(f.FlowName, f.FlowID), f.Count)
	}
	list := make([]*area, 0, len(areas))
	for _, a := range areas {
		list = append(list, a)
	}
	slices.SortFunc(list, func(a, b *area) int {
		if c := cmp.Compare(b.weight, a.weight); c != 0 {
			return c
		}
		return cmp.Compare(a.order, b.order)
	})
	var out []string
	for _, a := range list[:min(len(list), MaxExpertise)] {
		out = append(out, a.name)
	}
	return out
}

// repeatedFlows sums completed tasks per flow and keeps the flows with at least
// minFlowCompletions, by flow id.
func repeatedFlows(tallies []ActivityTally) []ActivityTally {
	byFlow := map[string]*ActivityTally{}
	for _, t := range tallies {
		if t.Kind != ActivityTaskCompleted || t.FlowID == "" {
			continue
		}
		c := byFlow[t.FlowID]
		if c == nil {
			c = &ActivityTally{FlowID: t.FlowID}
			byFlow[t.FlowID] = c
		}
		c.Count += t.Count
		if t.FlowName != "" {
			c.FlowName = t.FlowName
		}
	}
	var out []ActivityTally
	for _, c := range byFlow {
		if c.Count >= minFlowCompletions {
			out = append(out, *c)
		}
	}
	slices.SortFunc(out, func(a, b ActivityTally) int { return cmp.Compare(a.FlowID, b.FlowID) })
	return out
}

// cueAreas returns the areas named after each expertise cue of a text.
func cueAreas(text string) []string {
	lower := asciiLower(text) // same byte offsets as text, so cue positions carry over
	var out []string
	for _, cue := range expertiseCues {
		for from := 0; ; {
			i := strings.Index(lower[from:], cue)
			if i < 0 {
				break
			}
			start := from + i + len(cue)
			from = start
			rest := text[start:]
			for _, end := range clauseEnds {
				if j := strings.Index(rest, end); j >= 0 {
					rest = rest[:j]
				}
			}
			out = append(out, splitList(rest)...)
		}
	}
	return out
}

// splitList cuts "SQL, Go and data modelling" into its items, at most
// maxAreasPerCue, without leading articles.
func splitList(s string) []string {
	items := []string{s}
	for _, sep := range listSeparators {
		var next []string
		for _, it := range items {
			next = append(next, strings.Split(it, sep)...)
		}
		items = next
	}
	var out []string
	for _, it := range items {
		it = strings.TrimSpace(it)
		for _, article := range []string{"the ", "a ", "an "} {
			if strings.HasPrefix(strings.ToLower(it), article) {
				it = strings.TrimSpace(it[len(article):])
			}
		}
		it = strings.TrimSuffix(it, "方面")
		if it != "" && len(out) < maxAreasPerCue {
			out = append(out, it)
		}
	}
	return out
}

// asciiLower lower-cases ASCII letters only, keeping every byte offset.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

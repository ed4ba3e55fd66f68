package instruction

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"engram/domain/clip"
)

// Verdict says whether a text, or one part of it, is instruction-like, and which rule
// said so.
type Verdict struct {
	Rule  string // a Rule* name; empty when nothing fired
	Lang  string // the language of the rule that fired
	Match string // the normalised text that fired, at most MaxMatchLen characters
}

// MaxMatchLen bounds Verdict.Match, which is logged and shown in traces.
const MaxMatchLen = 80

// InstructionLike reports whether a rule fired.
func (v Verdict) InstructionLike() bool { return v.Rule != "" }

// Part is one sentence (or line) of a text, normalised, with its own verdict. A
// role marker or a fake delimiter makes every later part instruction-like too.
type Part struct {
	Text    string
	Verdict Verdict
}

// Classify returns the verdict of the first rule, in priority order, that fires
// anywhere in text; the zero Verdict when none does.
func Classify(text string) Verdict {
	a := analyse(text)
	if len(a.hits) == 0 {
		return Verdict{}
	}
	best := a.hits[0]
	for _, h := range a.hits[1:] {
		if h.rule < best.rule {
			best = h
		}
	}
	return a.verdict(best)
}

// Split cuts text into its sentences and gives each its verdict, so a caller can
// tell which part of a message an extracted fact came from.
func Split(text string) []Part {
	a := analyse(text)
	parts := make([]Part, len(a.spans))
	rank := make([]int, len(a.spans))
	for i, s := range a.spans {
		parts[i].Text = a.norm[s.start:s.end]
		rank[i] = -1
	}
	for _, h := range a.hits {
		first, last := a.partAt(h.start), a.partAt(max(h.end-1, h.start))
		if rules[h.rule].Reach == ReachRest {
			last = len(a.spans) - 1
		}
		for p := first; p <= last; p++ {
			if rank[p] < 0 || h.rule < rank[p] {
				rank[p] = h.rule
				parts[p].Verdict = a.verdict(h)
			}
		}
	}
	return parts
}

type span struct{ start, end int }

// hit is one match of one rule (an index into rules) at [start, end) of the
// normalised text.
type hit struct {
	rule       int
	start, end int
}

type analysis struct {
	norm  string
	normL string // norm with a 1 inside a word read as l instead of i; "" when no 1
	spans []span
	hits  []hit
}

func (a *analysis) verdict(h hit) Verdict {
	r := rules[h.rule]
	return Verdict{Rule: r.Name, Lang: r.Lang, Match: clip.Runes(strings.TrimSpace(a.norm[h.start:h.end]), MaxMatchLen)}
}

// partAt is the index of the span holding offset i (the nearest before it when i
// falls between two spans).
func (a *analysis) partAt(i int) int {
	p := 0
	for k, s := range a.spans {
		if s.start > i {
			break
		}
		p = k
	}
	return p
}

func (a *analysis) partText(p int) string {
	if len(a.spans) == 0 {
		return a.norm
	}
	s := a.spans[p]
	return a.norm[s.start:s.end]
}

// analyse normalises text, cuts it into sentences and runs every rule over it.
func analyse(text string) *analysis {
	a := &analysis{norm: normalize(text)}
	if strings.ContainsRune(text, '1') {
		a.normL = normalizeWith(text, leetL)
	}
	a.spans = sentenceSpans(a.norm)
	if len(a.spans) == 0 {
		return a
	}
	idx := indexKeys(lowerASCII(a.norm))
	var views []squashed // built for the first rule that looks phrases up squashed
	for i := range rules {
		r := &rules[i]
		a.matchPatterns(i, r.patterns, idx)
		a.matchAllOf(i, r.allOf, idx)
		if len(r.squashed) > 0 {
			if views == nil {
				views = a.squashedViews()
			}
			a.matchSquashed(i, r.squashed, views)
		}
	}
	return a
}

// matchPatterns records the matches of rule i's patterns; a pattern written after
// {imp} counts only where an imperative may stand.
func (a *analysis) matchPatterns(i int, patterns []pattern, idx keyIndex) {
	for _, p := range patterns {
		for _, loc := range p.gate.findAll(p.re, a.norm, 0, len(a.norm), idx) {
			if p.imp == nil || a.imperativeAt(p, loc[0]) {
				a.add(i, loc[0], loc[1])
			}
		}
	}
}

// matchAllOf records, per sentence, where each group of rule i matches whole.
func (a *analysis) matchAllOf(i int, groups [][]pattern, idx keyIndex) {
	for _, group := range groups {
		if !gatesOpen(group, idx) {
			continue
		}
		for _, s := range a.spans {
			if loc := a.allMatch(group, s, idx); loc != nil {
				a.add(i, loc[0], loc[1])
			}
		}
	}
}

// squashedViews are the text with every separator removed, and the same for the
// reading with 1 as l when it differs ("ru1es": a 1 inside a word may stand for l
// as well as for i). A view that is not there has no offsets.
func (a *analysis) squashedViews() []squashed {
	views := []squashed{squash(a.norm), {}}
	if a.normL != "" && a.normL != a.norm {
		views[1] = squash(a.normL)
	}
	return views
}

// matchSquashed records every occurrence of rule i's phrases in the squashed views,
// mapped back to offsets of the normalised text.
func (a *analysis) matchSquashed(i int, phrases []string, views []squashed) {
	for _, view := range views {
		if view.offsets == nil {
			continue
		}
		for _, phrase := range phrases {
			for from := 0; ; {
				j := strings.Index(view.text[from:], phrase)
				if j < 0 {
					break
				}
				j += from
				a.add(i, view.offsets[j], view.offsets[j+len(phrase)-1]+1)
				from = j + len(phrase)
			}
		}
	}
}

// imperativeAt reports whether the text before offset i ends the way an imperative
// must be preceded (see imperativeBefore and subjectBefore).
func (a *analysis) imperativeAt(p pattern, i int) bool {
	if i == 0 || a.norm[i-1] == '\n' {
		return true
	}
	from := max(i-impContext, 0)
	for from > 0 && !utf8.RuneStart(a.norm[from]) {
		from++
	}
	before := a.norm[from:i]
	if !p.imp.MatchString(before) {
		return false
	}
	// A sentence break right before is an imperative whatever came earlier.
	if last, _ := utf8.DecodeLastRuneInString(strings.TrimRight(before, " ")); strings.ContainsRune(".!?;:,\n\"'([>-", last) {
		return true
	}
	return p.subject == nil || !p.subject.MatchString(before)
}

// add records a hit of rule i unless one of its Unless patterns matches the
// sentence the hit starts in.
func (a *analysis) add(i, start, end int) {
	// A pattern may open with the punctuation that ends the sentence before it; the
	// hit starts after it.
	for start < end {
		r, n := utf8.DecodeRuneInString(a.norm[start:])
		if !unicode.IsSpace(r) && !unicode.IsPunct(r) {
			break
		}
		start += n
	}
	part := a.partText(a.partAt(start))
	for _, re := range rules[i].unless {
		if re.MatchString(part) {
			return
		}
	}
	a.hits = append(a.hits, hit{rule: i, start: start, end: end})
}

func gatesOpen(group []pattern, idx keyIndex) bool {
	for _, p := range group {
		if !p.gate.open(idx) {
			return false
		}
	}
	return true
}

// allMatch reports where the first pattern of group matched when every pattern of
// group matches within the sentence s; nil otherwise.
func (a *analysis) allMatch(group []pattern, s span, idx keyIndex) []int {
	var first []int
	for k, p := range group {
		locs := p.gate.findAll(p.re, a.norm, s.start, s.end, idx)
		if len(locs) == 0 {
			return nil
		}
		if k == 0 {
			first = locs[0]
		}
	}
	return first
}

// sentenceSpans cuts s at line breaks and sentence ends (. ! ? ; 。 …), leaving out
// the spaces around each sentence and empty ones.
func sentenceSpans(s string) []span {
	var out []span
	start := 0
	for i, r := range s {
		if end := i + utf8.RuneLen(r); endsSentence(s, r, end) {
			out = appendSpan(out, s, start, end)
			start = end
		}
	}
	return appendSpan(out, s, start, len(s))
}

// endsSentence reports whether r, which ends at offset end of s, ends a sentence. A
// period, an exclamation or a question mark ends one only before a space, a Chinese
// character, a quote or the end, so URLs ("?q="), "3.5" and "![image](…)" stay whole.
func endsSentence(s string, r rune, end int) bool {
	switch r {
	case '\n', ';', '。', '…', '！', '？', '；':
		return true
	case '.', '!', '?':
		if end >= len(s) {
			return true
		}
		next, _ := utf8.DecodeRuneInString(s[end:])
		return next == ' ' || next == '\n' || next == '"' || next == '\'' || isHan(next)
	}
	return false
}

// appendSpan appends s[start:end) without its leading spaces and trailing spaces and
// line breaks, unless nothing is left.
func appendSpan(out []span, s string, start, end int) []span {
	for start < end && s[start] == ' ' {
		start++
	}
	for end > start && (s[end-1] == ' ' || s[end-1] == '\n') {
		end--
	}
	if end > start {
		out = append(out, span{start, end})
	}
	return out
}

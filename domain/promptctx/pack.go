package promptctx

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"engram/domain/clip"
)

// Item is one candidate for the block.
type Item struct {
	ID      string  // the memory key, the message id, "summary", "profile:2", "external:0"…
	Section Section // where it goes
	Kind    string  // memory, message, profile, summary, external (the trace's kind)
	Source  string  // where it came from (the trace's source)
	// Label names the item on its first line ("[preference] diet", "用户",
	// "2023-05-08 Caroline", a caller's source); it is made safe by Render. Empty:
	// the text alone ("> …").
	Label string
	Text  string  // the stored text; quoted by Render
	Score float64 // calibrated relevance in [0, 1] (pooled sections are ranked by it)
	// Group joins items of one section that go in together or not at all (a
	// user message and the answer to it); "": the item stands alone.
	Group string
	// Parts are Text cut into sentences, each with its relevance to the
	// question; when the item must be cut, its most relevant sentences are kept
	// rather than its first characters. Empty: a cut keeps the start.
	Parts []Part
}

// Part is one sentence of an item's text with its relevance to the question.
type Part struct {
	Text  string
	Score float64
}

// Budget bounds the block.
type Budget struct {
	// Chars is the hard cap on the block, in characters (runes), everything counted.
	Chars int
	// Shares cap each section in the first pass, as a share of Chars; a section
	// without one may take everything. DefaultShares when nil.
	Shares map[Section]float64
}

// DefaultShares keep one long source from crowding out the others while there
// is competition; what they leave unused goes out in the second pass.
// Standing's share is a cap (what does not fit in it is left out, reason
// standing_share), so the query-relevant sections keep their room.
var DefaultShares = map[Section]float64{
	Profile: 0.15, Standing: 0.25, Summary: 0.25, Recent: 0.35, Memories: 0.5, Episodes: 0.5, External: 0.4,
}

// MinTruncated is the least of an item's text a cut may keep: a shorter stub says
// too little to be worth its label.
const MinTruncated = 24

// Why Pack left an item out.
const (
	ReasonBudget = "budget" // no room left, within its section's share or at all
	ReasonEmpty  = "empty"  // nothing left of its text once cleaned
	// ReasonStandingShare: a standing memory the standing share could not hold.
	ReasonStandingShare = "standing_share"
)

// Decision is what Pack did with one item.
type Decision struct {
	Item
	Kept      bool
	Truncated bool   // kept with its text cut to fit
	Reason    string // why it was left out
	// Chars is what the item added to the block: its lines and the line break
	// before them (its section's heading not included).
	Chars int
	text  string // the text rendered (Item.Text, or its cut)
	lines string // its rendered lines
}

// Plan is a packed block.
type Plan struct {
	Prompt    string
	Chars     int        // characters (runes) of Prompt, at most Budget.Chars
	Decisions []Decision // one per item, in the order given
}

// Kept returns the kept decisions in the order of the block.
func (p Plan) Kept() []Decision {
	var out []Decision
	for _, s := range Order {
		out = append(out, p.section(s)...)
	}
	return out
}

// section returns the kept decisions of s in the block's order: recent messages
// oldest first (they are given newest first), the others as given for profile
// and summary and best score first for the pooled sections.
func (p Plan) section(s Section) []Decision {
	var out []Decision
	for _, d := range p.Decisions {
		if d.Kept && d.Section == s {
			out = append(out, d)
		}
	}
	switch {
	case s == Recent:
		slices.Reverse(out)
	case s.pooled():
		slices.SortStableFunc(out, func(a, b Decision) int { return cmpScore(a.Score, b.Score) })
	}
	return out
}

// packer is one run of Pack.
type packer struct {
	layout    Layout
	quoter    quoter
	budget    Budget
	decisions []Decision
	left      int             // characters still free
	used      map[Section]int // characters each section took, its heading included
}

// Pack decides which items go into the block and writes it (see the package doc
// for the rules). Items of profile and summary are given in their order of
// priority, recent messages newest first, the pooled ones in any order.
func Pack(items []Item, b Budget, l Layout) Plan {
	if b.Shares == nil {
		b.Shares = DefaultShares
	}
	p := &packer{layout: l, quoter: l.quoter(), budget: b, used: map[Section]int{}}
	p.decisions = make([]Decision, len(items))
	for i, it := range items {
		p.decisions[i] = Decision{Item: it, Reason: ReasonBudget, text: it.Text}
		if len(p.quoter.lines(it.Text)) == 0 {
			p.decisions[i].Reason = ReasonEmpty
		}
	}
	p.left = b.Chars - p.frameChars()
	order := p.priority()
	for _, i := range order {
		p.admit(i, p.shareLeft(p.decisions[i].Section), false)
	}
	for _, i := range order {
		if s := p.decisions[i].Section; s.capped() {
			p.admit(i, p.shareLeft(s), true)
		} else {
			p.admit(i, p.left, true)
		}
	}
	for i := range p.decisions {
		if d := &p.decisions[i]; !d.Kept && d.Reason == ReasonBudget && d.Section.capped() {
			d.Reason = ReasonStandingShare
		}
	}
	return p.plan()
}

// frameChars is what the header, the notice and the footer cost.
func (p *packer) frameChars() int {
	return runes(p.layout.header()) + 1 + runes(notices[p.layout.Language.orDefault()]) + 1 + runes(p.layout.Footer())
}

// priority is the order items are considered in: profile, summary and recent as
// given, then the pooled sections by score, best first, ties in block order.
func (p *packer) priority() []int {
	var fixed, pool []int
	for _, s := range Order {
		for i, d := range p.decisions {
			if d.Section != s || d.Reason == ReasonEmpty {
				continue
			}
			if s.pooled() {
				pool = append(pool, i)
			} else {
				fixed = append(fixed, i)
			}
		}
	}
	slices.SortStableFunc(pool, func(a, b int) int { return cmpScore(p.decisions[a].Score, p.decisions[b].Score) })
	return append(fixed, pool...)
}

// shareLeft is what the section may still take in the first pass.
func (p *packer) shareLeft(s Section) int {
	share, ok := p.budget.Shares[s]
	if !ok {
		return p.left
	}
	return min(p.left, int(math.Floor(share*float64(p.budget.Chars)))-p.used[s])
}

// admit keeps item i — with the rest of its group, all or none — when they fit
// in avail characters whole, or, when mayCut and they would be the first of
// their section, with the last of them in the block cut to fit. An item whose
// twin (same kind and id) is in the block already is left out.
func (p *packer) admit(i, avail int, mayCut bool) {
	d := &p.decisions[i]
	if d.Kept || d.Reason == ReasonEmpty || d.Reason == ReasonDuplicate {
		return
	}
	if p.twinKept(i) {
		d.Reason = ReasonDuplicate
		return
	}
	members := p.group(i)
	first := p.used[d.Section] == 0
	heading := 0
	if first {
		heading = p.headingChars(d.Section)
	}
	whole := 0
	for _, j := range members[:len(members)-1] {
		whole += p.cost(p.decisions[j].Label, p.decisions[j].Text)
	}
	last := members[len(members)-1]
	text, truncated, cost, ok := p.fit(p.decisions[last].Item, avail-heading-whole, mayCut && first)
	if !ok {
		return
	}
	for _, j := range members {
		m := &p.decisions[j]
		m.Kept, m.Reason, m.text, m.Chars = true, "", m.Text, p.cost(m.Label, m.Text)
		if j == last {
			m.Truncated, m.text, m.Chars = truncated, text, cost
		}
		m.lines = p.render(m.Label, m.text)
	}
	p.left -= whole + cost + heading
	p.used[d.Section] += whole + cost + heading
}

// group is item i with the other items of its group that are not empty, in
// the order of the block (so the last is the one a cut may shorten).
func (p *packer) group(i int) []int {
	d := p.decisions[i]
	if d.Group == "" {
		return []int{i}
	}
	var out []int
	for j, o := range p.decisions {
		if o.Section == d.Section && o.Group == d.Group && o.Reason != ReasonEmpty {
			out = append(out, j)
		}
	}
	if d.Section == Recent { // given newest first, written oldest first
		slices.Reverse(out)
	}
	return out
}

// twinKept reports whether another item of the same kind and id is kept: a
// standing memory the search found too goes in once.
func (p *packer) twinKept(i int) bool {
	d := p.decisions[i]
	for j, o := range p.decisions {
		if j != i && o.Kept && o.Kind == d.Kind && o.ID == d.ID && o.Section != d.Section {
			return true
		}
	}
	return false
}

// headingChars is what a section's heading costs.
func (p *packer) headingChars(s Section) int { return 1 + runes(p.layout.Language.Heading(s)) }

// fit returns the item's text as it fits in avail characters: whole, or, when
// mayCut, the longest cut of at least MinTruncated characters that fits.
func (p *packer) fit(it Item, avail int, mayCut bool) (text string, truncated bool, cost int, ok bool) {
	if c := p.cost(it.Label, it.Text); c <= avail {
		return it.Text, false, c, true
	}
	if !mayCut {
		return "", false, 0, false
	}
	if text, ok := p.fitParts(it, avail); ok {
		return text, true, p.cost(it.Label, text), true
	}
	clean := []rune(Clean(it.Text))
	cut := func(n int) string { return strings.TrimRightFunc(string(clean[:n]), isSpaceRune) + clip.Ellipsis }
	lo, hi := MinTruncated, len(clean)-1 // the longest n whose cut fits
	if lo > hi || p.cost(it.Label, cut(lo)) > avail {
		return "", false, 0, false
	}
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if p.cost(it.Label, cut(mid)) <= avail {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	text = cut(lo)
	return text, true, p.cost(it.Label, text), true
}

// fitParts cuts an item with parts to its most relevant sentences: best score
// first (the earlier of equals), each kept when the whole still fits in avail,
// written in their own order with an ellipsis where sentences were left out.
// ok is false when no sentence fits, or what fits is under MinTruncated.
func (p *packer) fitParts(it Item, avail int) (string, bool) {
	if len(it.Parts) < 2 {
		return "", false
	}
	byScore := make([]int, len(it.Parts))
	for i := range byScore {
		byScore[i] = i
	}
	slices.SortStableFunc(byScore, func(a, b int) int { return cmpScore(it.Parts[a].Score, it.Parts[b].Score) })
	chosen := make([]bool, len(it.Parts))
	text := ""
	for _, i := range byScore {
		chosen[i] = true
		if t := joinParts(it.Parts, chosen); p.cost(it.Label, t) <= avail {
			text = t
		} else {
			chosen[i] = false
		}
	}
	if runes(Clean(text)) < MinTruncated {
		return "", false
	}
	return text, true
}

// joinParts writes the chosen parts as the text has them, an ellipsis standing
// for each run of parts left out.
func joinParts(parts []Part, chosen []bool) string {
	out, gap := "", false
	for i, part := range parts {
		switch {
		case !chosen[i]:
			gap = true
		case gap:
			out = strings.TrimRightFunc(out, isSpaceRune) + clip.Ellipsis + strings.TrimLeftFunc(part.Text, isSpaceRune)
			gap = false
		default:
			out += part.Text
		}
	}
	out = strings.TrimSpace(out)
	if gap && out != "" {
		out += clip.Ellipsis
	}
	return out
}

// cost is what an item of this label and text adds to the block.
func (p *packer) cost(label, text string) int { return 1 + runes(p.render(label, text)) }

// render writes an item's lines: "- label > first line" and "  > " before each
// further line, or "> " before every line without a label.
func (p *packer) render(label, text string) string {
	lines := p.quoter.lines(text)
	label = p.quoter.label(label)
	var b strings.Builder
	for i, line := range lines {
		prefix := "> "
		switch {
		case i > 0:
			b.WriteByte('\n')
			if label != "" {
				prefix = "  > "
			}
		case label != "":
			prefix = "- " + label + " > "
		}
		b.WriteString(strings.TrimRight(prefix+line, " "))
	}
	return b.String()
}

// plan writes the block of the kept items; none kept is the empty block.
func (p *packer) plan() Plan {
	out := Plan{Decisions: p.decisions}
	lines := []string{p.layout.header(), notices[p.layout.Language.orDefault()]}
	kept := 0
	for _, s := range Order {
		ds := out.section(s)
		if len(ds) == 0 {
			continue
		}
		lines = append(lines, p.layout.Language.Heading(s))
		for _, d := range ds {
			lines = append(lines, d.lines)
			kept++
		}
	}
	if kept == 0 {
		return out
	}
	out.Prompt = strings.Join(append(lines, p.layout.Footer()), "\n")
	out.Chars = runes(out.Prompt)
	return out
}

// RenderedText is the text a kept decision put into the block (cut when
// Truncated).
func (d Decision) RenderedText() string { return d.text }

func runes(s string) int { return utf8.RuneCountInString(s) }

func isSpaceRune(r rune) bool { return r == ' ' || r == '\n' }

// cmpScore orders best first.
func cmpScore(a, b float64) int { return cmp.Compare(b, a) }

package rules

import (
	"context"
	"regexp"
	"strings"
	"unicode/utf8"

	"engram/adapters/rules/slots"
	"engram/adapters/rules/stance"
	"engram/domain/candidate"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
)

var _ ports.Extractor = (*Extractor)(nil)

// DefaultMaxCandidates bounds what one user message proposes; the pipeline applies
// its own per-message write limit after refinement (and carries what is over it to
// the next run).
const DefaultMaxCandidates = 12

// Remembering explicitly ("remember that…", "记住…") raises confidence and importance.
const (
	rememberConfidence = 0.95
	rememberImportance = 1
)

// ExtractorOptions configure the rule extractor. The zero value is usable.
type ExtractorOptions struct {
	Boundaries    candidate.Boundaries // candidates that fail them are not proposed
	MaxCandidates int                  // per user message; 0 means DefaultMaxCandidates
}

// Extractor is the offline stage-1 extractor: trigger phrases and patterns in English
// and Chinese over user messages, no network, deterministic. It learns what users
// state plainly about themselves and stays silent otherwise. Identity slots
// (adapters/rules/slots) come out as slot candidates for the profile.
type Extractor struct {
	opts  ExtractorOptions
	slots *slots.Recognizer
}

// slotConfidence is how sure a slot rule is: it only fires on an explicit request
// ("call me…", "叫我…").
const slotConfidence = 0.9

// NewExtractor builds a rule extractor.
func NewExtractor(opts ExtractorOptions) *Extractor {
	if opts.MaxCandidates <= 0 {
		opts.MaxCandidates = DefaultMaxCandidates
	}
	return &Extractor{opts: opts, slots: slots.Default()}
}

// Extract proposes candidates from the user messages of in.Messages. Context and
// summary are not used: the rules only trust what the user says in the message
// itself. It never calls a model, so usage is always zero.
func (e *Extractor) Extract(ctx context.Context, in ports.ExtractionInput) ([]candidate.Candidate, ports.LLMUsage, error) {
	var out []candidate.Candidate
	for _, m := range in.Messages {
		if err := ctx.Err(); err != nil {
			return nil, ports.LLMUsage{}, err
		}
		if m.Role != conversation.RoleUser {
			continue // assistant and system text is never a source of facts
		}
		// Each message keeps its own candidates, so each says what it taught; a
		// later message on the same key is a later write to it (an update).
		got := e.ExtractMessage(m.ID, m.Content)
		if len(got) > e.opts.MaxCandidates {
			got = got[len(got)-e.opts.MaxCandidates:]
		}
		out = append(out, got...)
	}
	return out, ports.LLMUsage{}, nil
}

// ExtractMessage runs the rules over one user message. It applies the pre-filter
// first and the boundaries last, so what it returns is ready for refinement.
func (e *Extractor) ExtractMessage(messageID, text string) []candidate.Candidate {
	if worth, _ := candidate.Prefilter(text); !worth {
		return nil
	}
	// Fillers go first ("I am allergic to peanuts, seriously." reads as "I am
	// allergic to peanuts."), so no pattern takes one for its object.
	folded := stance.Default().Clean(candidate.Fold(strings.TrimSpace(text)))
	var drafts []draft
	greeted := false
	for _, s := range candidate.Sentences(folded) {
		// "Hi! I'm Priya.": a sentence that is only a greeting opens the next one too.
		drafts = append(drafts, extractSentence(s, false, greeted)...)
		greeted = onlyGreeting(s)
	}
	cands := make([]candidate.Candidate, 0, len(drafts))
	for _, d := range drafts {
		cands = append(cands, d.candidate(messageID))
	}
	for _, m := range e.slots.Find(text) {
		cands = append(cands, candidate.NewSlotCandidate(m.Slot, m.Value, slotConfidence, messageID))
	}
	var out []candidate.Candidate
	for _, c := range cands {
		if ok, _ := e.opts.Boundaries.Screen(c); ok {
			out = append(out, c)
		}
	}
	return lastPerKey(out)
}

// lastPerKey keeps, for each key, the last candidate: a later statement in the same
// turn corrects an earlier one ("I live in Berlin… actually, Munich").
func lastPerKey(cs []candidate.Candidate) []candidate.Candidate {
	last := map[string]int{}
	for i, c := range cs {
		last[c.Key] = i
	}
	out := cs[:0:0]
	for i, c := range cs {
		if last[c.Key] == i {
			out = append(out, c)
		}
	}
	return out
}

// draft is a candidate before it has a source.
type draft struct {
	op         candidate.Op // empty: ADD
	typ        memory.Type
	key        string
	content    string
	importance int
	confidence float64
}

func (d draft) candidate(messageID string) candidate.Candidate {
	imp := d.importance
	if imp > memory.MaxImportance {
		imp = memory.MaxImportance
	}
	conf := d.confidence
	if conf > 1 {
		conf = 1
	}
	op := d.op
	if op == "" {
		op = candidate.OpAdd
	}
	return candidate.CalibrateImportance(candidate.Candidate{
		Op:              op,
		Type:            d.typ,
		Key:             d.key,
		Content:         d.content,
		Importance:      imp,
		Confidence:      conf,
		SourceMessageID: messageID,
	})
}

// extractSentence walks the clause starts of one folded sentence and applies the
// first matching pattern at each. boost marks text under an explicit "remember";
// greeted says the sentence before was a bare greeting ("Hi! I'm Priya.").
//
// A clause is tried at its start; when nothing matches there, at the next
// first-person sub-clause inside it ("I moved to Berlin last year and I work as a
// nurse": the second statement does not wait for a comma), so one clause that
// states nothing, or something time-bound, does not hide the next. A clause without
// a subject right after a statement of the user's ("我结婚了，有两个孩子", "I live in
// Berlin and work at Siemens") is read with the user as its subject.
func extractSentence(s string, boost, greeted bool) []draft {
	low := candidate.LowerASCII(s)
	question := strings.HasSuffix(strings.TrimSpace(s), "?")
	opening := low[skipSpacePunct(low, 0):]
	greeted = greeted || prefixWord(opening, greetingsEN) != "" || prefixWord(opening, greetingsZH) != ""
	var out []draft
	carry := carryNone // whose statement the last one was: a subjectless clause may continue it
	for pos := 0; pos < len(s); {
		ds, next, carryOn := extractClause(s, low, pos, question, boost, greeted, carry)
		out = append(out, ds...)
		if len(ds) > 0 || carryOn != carryNone {
			carry = carryOn
		}
		if next <= pos {
			next = pos + 1
		}
		// After a match that stopped inside its clause ("I live in Berlin and I work at
		// Siemens"), go on from there; otherwise try a first-person sub-clause, then
		// move to the next clause.
		end := clauseEnd(low, next)
		if len(ds) > 0 && next < end && strings.TrimSpace(s[next:end]) != "" {
			pos = next
			continue
		}
		if len(ds) == 0 {
			if sub := subClauseStart(low, pos, clauseEnd(low, pos)); sub > pos {
				pos = sub
				carry = carryNone
				continue
			}
		}
		if end >= len(s) {
			break
		}
		pos = end + 1
	}
	return out
}

// onlyGreeting reports whether a sentence is nothing but a greeting ("Hi!", "你好！").
func onlyGreeting(s string) bool {
	low := candidate.LowerASCII(strings.TrimSpace(s))
	low = strings.TrimRight(low, "!.,~ ")
	for _, g := range greetingsEN {
		if low == g || strings.HasPrefix(low, g+" there") && len(low) == len(g)+6 {
			return true
		}
	}
	for _, g := range greetingsZH {
		if low == g || low == g+"啊" || low == g+"呀" {
			return true
		}
	}
	return false
}

// subClauseEN/ZH find a first-person statement joined inside a clause: "…and I work
// as…", "…but my wife…", "…所以我…". Conditions ("if I…", "when I…") are not among
// the joins: what follows them is not stated as true.
var (
	subClauseEN = regexp.MustCompile(`\b(?:and|but|so|because|since|although|though|plus|also|and also|and now)\s+(?:i|i'm|i've|my|we|we've|we're|our)\b`)
	subClauseZH = regexp.MustCompile(`(?:而且|但是|但|不过|所以|因为|并且|同时|可是|然后|现在)我`)
)

// subClauseStart is the offset of the subject of the next sub-clause in low[from:end]
// (after its first character, so a clause never restarts where it began), or -1.
func subClauseStart(low string, from, end int) int {
	if from+1 >= end {
		return -1
	}
	part := low[from+1 : end]
	best := -1
	if loc := subClauseEN.FindStringIndex(part); loc != nil {
		j := loc[1] - 1
		for j > loc[0] && part[j-1] != ' ' && part[j-1] != '\t' {
			j--
		}
		best = j
	}
	if hasCJK(part) {
		if loc := subClauseZH.FindStringIndex(part); loc != nil && (best < 0 || loc[1] < best) {
			best = loc[1] - len("我")
		}
	}
	if best < 0 {
		return -1
	}
	return from + 1 + best
}

var (
	greetingsEN = []string{"hello", "hi", "hey", "good morning", "good afternoon", "good evening"}
	greetingsZH = []string{"你好", "您好", "嗨", "哈喽", "大家好"}
)

// extractClause tries the patterns at the clause starting at start; it returns the
// drafts, the offset up to which the sentence has been consumed, and whether a
// subjectless clause after it may continue with the user as subject. carry says the
// clause before was such a statement.
func extractClause(s, low string, start int, question, boost, greeted bool, carry carryMode) ([]draft, int, carryMode) {
	i, hedged := skipOpeners(low, start)
	if i >= len(s) {
		return nil, len(s), carryNone
	}
	end := clauseEnd(low, i)
	if question && candidate.LooksLikeQuestion(low[i:end]) || carry == carryHypothetical {
		return nil, end, carryNone
	}
	if next, vetoed := vetoCarry(low[i:end]); vetoed {
		return nil, end, next
	}
	restLow := low[i:]
	at := clauseAt{inside: start > 0, question: question, boost: boost, greeted: greeted,
		hypothetical: prefixWord(restLow, hypotheticalEN) != "" || prefixWord(restLow, hypotheticalZH) != ""}
	ds, consumed, carryOn := matchPatterns(s[i:], restLow, at)
	next := i + consumed
	if len(ds) == 0 && carry != carryNone && !at.hypothetical {
		ds, next, carryOn = matchCarried(s, low, start, i, carry, at)
	}
	if len(ds) == 0 {
		return nil, end, carryNone
	}
	for k := range ds {
		if hedged {
			ds[k].confidence -= hedgePenalty
		}
		if boost {
			ds[k].confidence = rememberConfidence
			ds[k].importance += rememberImportance
		}
	}
	return ds, next, carryOn
}

// vetoCarry says whether the stance of a clause vetoes it: a clause that denies,
// supposes, doubts or reports states nothing true about the user. It also gives the
// carry for the clause after: a denial is still the user's own statement, so a
// subjectless clause after it is theirs ("我对花生不过敏，但是对海鲜过敏").
func vetoCarry(clause string) (carryMode, bool) {
	switch veto := stance.Default().For(clause).Veto(clause); {
	case veto == "":
		return carryNone, false
	case veto == stance.Negated:
		return carryUser, true
	case veto == stance.Hypothetical && len(strings.Fields(clause)) <= 2:
		// "Hypothetically, I'm allergic to peanuts.": the marker stands alone
		// and the clause after it is what it supposes.
		return carryHypothetical, true
	}
	return carryNone, true
}

// matchCarried reads a clause without a subject of its own, starting at i, with
// the user as its subject: "我结婚了，有两个孩子" → "我有两个孩子"; "I live in Berlin
// and work at Siemens" → "I work at Siemens"; "我儿子四岁，女儿七岁" → "我女儿七岁". It
// returns the drafts and the offset in s up to which they consumed it.
func matchCarried(s, low string, start, i int, carry carryMode, at clauseAt) ([]draft, int, carryMode) {
	// skipOpeners has taken "and" off an English continuation; look at it again.
	if j := skipSpacePunct(low, start); strings.HasPrefix(low[j:], "and ") && i > j {
		i = j
	}
	prefix, skip := carriedSubject(low[i:], carry)
	if prefix == "" {
		return nil, 0, carryNone
	}
	at.inside, at.hypothetical, at.synthetic = true, false, true
	ds, consumed, carryOn := matchPatterns(prefix+s[i+skip:], prefix+low[i+skip:], at)
	return ds, i + consumed + skip - len(prefix), carryOn
}

// clauseAt is what is known about the clause the patterns are tried on.
type clauseAt struct {
	inside       bool // not at the start of its sentence
	question     bool // the sentence asks something
	boost        bool // under an explicit "remember"
	greeted      bool // the sentence (or the one before) opened with a greeting
	hypothetical bool // the clause opens with a condition ("if I…")
	synthetic    bool // the subject was left out by the user and put back by carriedSubject
}

// matchPatterns applies the first pattern that fits rest. Identity patterns ("我叫…")
// never apply to a synthetic clause.
func matchPatterns(rest, restLow string, at clauseAt) ([]draft, int, carryMode) {
	p, ds, consumed := firstFit(rest, restLow, at)
	if p == nil {
		return nil, 0, carryNone
	}
	if !candidate.IsCJK(firstRune(restLow)) && windowFollows(restLow, consumed) {
		// "I'm vegetarian this week", "I live in Berlin for now": the window
		// qualifies the statement, which is then not a long-term memory.
		return nil, consumed, carryNone
	}
	return ds, consumed, p.carryAfter()
}

// firstFit finds the first pattern of rest's script that matches at its start and
// fits (its key rule keeps the object): the pattern, its drafts and how much of
// rest they consumed; nil when none fits.
func firstFit(rest, restLow string, at clauseAt) (*pattern, []draft, int) {
	r0 := firstRune(restLow)
	ps := patternsFor(candidate.IsCJK(r0))
	for pi := range ps {
		p := &ps[pi]
		if !p.canStart(r0) || !p.allowedAt(at) {
			continue
		}
		loc := p.re.FindStringSubmatchIndex(restLow)
		if loc == nil {
			continue
		}
		if ds, consumed, ok := p.apply(newMatch(rest, loc), rest, loc, at.question); ok {
			return p, ds, consumed
		}
	}
	return nil, nil, 0
}

// canStart is the cheap test first: a pattern whose first rune cannot be r0 cannot
// match.
func (p *pattern) canStart(r0 rune) bool {
	return p.first == nil || p.first[r0]
}

// allowedAt says whether the pattern may apply to a clause in this position.
func (p *pattern) allowedAt(at clauseAt) bool {
	switch {
	case at.hypothetical && p.kind != kindReminder && !p.conditional:
		return false // a supposition states nothing, unless the rule opens with its condition
	case p.sentenceStart && at.inside, p.afterGreeting && !at.greeted, at.synthetic && p.noSynthetic:
		return false
	}
	return true
}

// newMatch holds the matched head (original case) and the submatches of loc.
func newMatch(rest string, loc []int) *match {
	m := &match{head: rest[:loc[1]], zh: hasCJK(rest[:loc[1]])}
	for g := 0; g+1 < len(loc); g += 2 {
		if loc[g] < 0 {
			m.groups = append(m.groups, "")
			continue
		}
		m.groups = append(m.groups, rest[loc[g]:loc[g+1]])
	}
	return m
}

// carryAfter is whose statement a match of the pattern is, for the clause after it.
func (p *pattern) carryAfter() carryMode {
	switch {
	case p.relativeCarry:
		return carryRelative
	case p.noCarry:
		return carryNone
	}
	return carryUser
}

// carryMode says whose statement the last one was, for the clause after it.
type carryMode int

const (
	carryNone         carryMode = iota
	carryUser                   // the user's: a subjectless clause is the user's too
	carryRelative               // a relative's: only a clause that names another relative is the user's
	carryHypothetical           // a bare "hypothetically," / "假如说,": the next clause is supposed, not stated
)

// windowFollows reports whether what follows a statement in its clause, up to the
// next joined statement, ties it to a short window ("… this week", "… for now").
// Chinese puts the time before the verb, so a window after a Chinese statement
// opens the next one ("我是护士明天要上夜班") and is not looked at.
func windowFollows(restLow string, consumed int) bool {
	if consumed >= len(restLow) {
		return false
	}
	frag := restLow[consumed:clauseEnd(restLow, consumed)]
	for _, j := range []string{" and ", " but ", " so ", " because ", " while ", " although "} {
		if i := strings.Index(frag, j); i >= 0 {
			frag = frag[:i]
		}
	}
	return strings.TrimSpace(frag) != "" && candidate.TimeWindow(frag) != ""
}

// carriedSubject says how to read a clause without a subject after one of the
// user's statements: the prefix to put in front and how many bytes of openers to
// drop first; "" when the clause has a subject of its own or is not a statement.
func carriedSubject(restLow string, carry carryMode) (prefix string, skip int) {
	zh := candidate.IsCJK(firstRune(restLow))
	switch {
	case carry == carryRelative && zh && hasAnyRelativePrefixZH(restLow):
		return "我", 0 // "我儿子四岁，女儿七岁": another relative of the user's
	case carry == carryRelative:
		return "", 0
	case zh:
		return carriedSubjectZH(restLow)
	}
	// English only carries over an explicit "and": "…dishes like kung pao chicken"
	// has a preposition where a verb could be.
	ws := strings.Fields(restLow)
	if len(ws) > 1 && ws[0] == "and" && carryVerbsEN[ws[1]] {
		return "i ", strings.Index(restLow, ws[1])
	}
	return "", 0
}

func hasAnyRelativePrefixZH(s string) bool {
	for w := range relationsZH {
		if strings.HasPrefix(s, w) {
			return true
		}
	}
	return false
}

// Chinese drops the subject freely; a clause that names one keeps it.
var (
	carryJoinsZH   = []string{"但是", "但", "不过", "可是", "而且", "并且", "同时", "所以", "然后"}
	carryAdverbsZH = []string{"现在", "目前", "也"}
	ownSubjectsZH  = []string{"我", "你", "他", "她", "它", "这", "那", "谁", "大家", "别人", "朋友", "叫", "是", "就是"}
	moreThingsZH   = []string{"和", "还有", "以及"}
	countOpenersZH = "一两三四五几"
)

func carriedSubjectZH(restLow string) (string, int) {
	// "我有两个孩子和一条狗": "和一条狗" is one more thing the user has.
	for _, c := range moreThingsZH {
		if r, ok := strings.CutPrefix(restLow, c); ok && strings.ContainsRune(countOpenersZH, firstRune(r)) {
			return "我有", len(c)
		}
	}
	// Joining words go ("但现在住在首尔" → "我现在住在首尔"); adverbs stay in the
	// statement ("也", "现在").
	skip := skipEach(restLow, 0, carryJoinsZH)
	r := restLow[skipEach(restLow, skip, carryAdverbsZH):]
	if r == "" || hasAnyPrefix(r, ownSubjectsZH...) {
		return "", 0
	}
	return "我", skip
}

// skipEach moves from past each of words in turn that opens s[from:].
func skipEach(s string, from int, words []string) int {
	for _, w := range words {
		if strings.HasPrefix(s[from:], w) {
			from += len(w)
		}
	}
	return from
}

// carryVerbsEN are base forms after which the user is still the subject ("…and work
// at Siemens"); a third-person form ("…and loves horses") is someone else's.
var carryVerbsEN = toSet(`work live love like enjoy have speak teach study own run prefer hate am also currently now
	usually always never don't can't`)

// apply turns a match into drafts. ok=false means the pattern did not fit after all
// and the next one should be tried.
func (p *pattern) apply(m *match, rest string, loc []int, question bool) ([]draft, int, bool) {
	switch p.kind {
	case kindCustom:
		return p.custom(m, rest, loc)
	case kindRemember:
		return applyRemember(rest, loc[1])
	case kindReminder:
		return p.applyReminder(m, rest)
	case kindRule:
		return p.applyRule(m, rest, loc[1])
	case kindWhole:
		return p.applyWhole(m, rest[:loc[1]])
	}
	return p.applyObject(m, rest, loc, question)
}

// applyWhole keeps the matched clause itself as the statement ("I'm vegetarian").
func (p *pattern) applyWhole(m *match, head string) ([]draft, int, bool) {
	whole, n := cutObject(head, m.zh, false)
	m.item = whole
	if m.zh {
		m.item = m.head
	}
	key, ok := p.key(m)
	if !ok {
		return nil, 0, false
	}
	return []draft{p.draft(key, statement(whole, m.zh))}, n, true
}

// applyObject makes one draft per valid item of the object after the head.
func (p *pattern) applyObject(m *match, rest string, loc []int, question bool) ([]draft, int, bool) {
	obj, consumed := p.object(m, rest, loc[1], question)
	if obj == "" {
		return nil, 0, false
	}
	zh := m.zh || hasCJK(obj)
	var out []draft
	for _, item := range p.items(obj, zh) {
		if d, ok := p.itemDraft(m, item, zh); ok {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		return nil, 0, false
	}
	return out, consumed, true
}

// object is the (trimmed) object of a match and the offset up to which rest is
// consumed: a submatch when the pattern names a group, else what follows the head.
func (p *pattern) object(m *match, rest string, headEnd int, question bool) (string, int) {
	if p.group > 0 {
		obj := p.groupObject(m)
		if p.trim != nil {
			obj = p.trim(obj)
		}
		return obj, headEnd
	}
	obj, n := cutObject(rest[headEnd:], m.zh || hasCJK(rest[headEnd:]), question)
	consumed := headEnd + n
	if p.trim != nil {
		// the raw object: fillers such as "now" in "for now" still matter here
		obj = p.trim(rest[headEnd:consumed])
	}
	return obj, consumed
}

// groupObject is the pattern's submatch; alternations may put it in a later group.
func (p *pattern) groupObject(m *match) string {
	for g := p.group; g < len(m.groups); g++ {
		if m.groups[g] != "" {
			return trimObject(m.groups[g], m.zh)
		}
	}
	return ""
}

// items splits an object into the things it lists, unless the pattern takes it
// whole (a submatch, a content of its own, "my favorite genres are rock and pop").
func (p *pattern) items(obj string, zh bool) []string {
	switch {
	case p.splitAnd:
		return splitAll(obj, zh)
	case p.group == 0 && p.content == nil && !p.wholeObject:
		return splitList(obj, zh)
	}
	return []string{obj}
}

// itemDraft is the draft for one item, ok=false when the item is no object the
// pattern keeps.
func (p *pattern) itemDraft(m *match, item string, zh bool) (draft, bool) {
	if !validObject(item, zh) && !(p.place && validPlace(item)) {
		return draft{}, false
	}
	m.item = item
	key, ok := p.key(m)
	if !ok {
		return draft{}, false
	}
	var content string
	switch {
	case p.content != nil:
		content = p.content(m)
	case zh:
		content = sentenceZH(thirdPersonZH(m.head + item))
	default:
		content = sentenceEN(thirdPersonEN(m.head) + " " + objectEN(item))
	}
	return p.draft(key, content), true
}

func (p *pattern) draft(key, content string) draft {
	return draft{op: p.op, typ: p.typ, key: key, content: content, importance: p.imp, confidence: p.conf}
}

// statement rewrites a whole first-person clause in the third person.
func statement(clause string, zh bool) string {
	if zh {
		return sentenceZH(thirdPersonZH(clause))
	}
	return sentenceEN(thirdPersonEN(clause))
}

// applyRemember extracts what follows "remember (that)". If no pattern matches, a
// first-person statement of at least three words is kept as a note in the user's
// own words; "remember to buy milk" is a to-do and yields nothing.
func applyRemember(rest string, headEnd int) ([]draft, int, bool) {
	body := strings.TrimSpace(rest[headEnd:])
	body = strings.TrimLeft(body, ",:;，：； ")
	if body == "" {
		return nil, len(rest), true
	}
	low := candidate.LowerASCII(body)
	if strings.HasPrefix(low, "to ") || strings.HasPrefix(low, "去") {
		return nil, len(rest), true
	}
	ds := extractSentence(body, true, false)
	if len(ds) > 0 {
		return ds, len(rest), true
	}
	zh := hasCJK(body)
	firstPerson := strings.Contains(body, "我")
	if !zh {
		for _, w := range strings.Fields(low) {
			switch strings.Trim(w, ".,!;:") {
			case "i", "my", "me", "i'm", "i've", "mine":
				firstPerson = true
			}
		}
	}
	if !firstPerson || candidate.LooksLikeQuestion(body) {
		return nil, len(rest), true
	}
	if (zh && utf8.RuneCountInString(body) < 4) || (!zh && len(strings.Fields(body)) < 3) {
		return nil, len(rest), true
	}
	d := draft{typ: memory.TypeFact, key: "note." + slugOf(body), importance: 3 + rememberImportance, confidence: rememberConfidence}
	if zh {
		d.content = sentenceZH(thirdPersonZH(strings.TrimRight(body, "。.!！")))
	} else {
		d.content = "User said: \"" + strings.TrimRight(body, ".!") + ".\""
	}
	return []draft{d}, len(rest), true
}

// applyRule handles "from now on …", "always …", "以后都…": the rule is the rest of
// the clause (Chinese rules may run over a comma after a condition: "以后回答我的问
// 题时，请用中文").
func (p *pattern) applyRule(m *match, rest string, headEnd int) ([]draft, int, bool) {
	zh := m.zh || hasCJK(rest)
	// "From now on, please keep…": the comma after the head does not end the rule.
	for headEnd < len(rest) && strings.IndexByte(",:; ", rest[headEnd]) >= 0 {
		headEnd++
	}
	var body string
	var n int
	if zh {
		body, n = cutRuleZH(rest[headEnd:])
	} else {
		body, n = cutObject(rest[headEnd:], false, false)
	}
	body = strings.TrimLeft(body, ",:; ")
	if addressed := strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(body, "都"), "请"), " "); strings.HasPrefix(addressed, "叫我") ||
		strings.HasPrefix(addressed, "称呼我") || strings.HasPrefix(strings.ToLower(addressed), "call me") {
		return nil, 0, false // "以后叫我小王": the preferred name, not a rule
	}
	if !validRule(body, zh, m.head) {
		return nil, 0, false
	}
	var content string
	if zh {
		content = sentenceZH(thirdPersonZH(m.head + body))
	} else {
		head := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(m.head), "please "))
		head = strings.TrimPrefix(head, "Please ")
		if strings.HasSuffix(head, "ever") || head == "always" || head == "never" || strings.EqualFold(head, "always") || strings.EqualFold(head, "never") {
			content = sentenceEN(head + " " + objectRuleEN(body))
		} else {
			content = sentenceEN(head + ", " + objectRuleEN(body))
		}
	}
	return []draft{p.draft(ruleKey(body), content)}, headEnd + n, true
}

// objectRuleEN turns "answer me in English" into "answer the user in English".
func objectRuleEN(body string) string {
	ws := strings.Fields(body)
	for i, w := range ws {
		switch strings.ToLower(strings.Trim(w, ".,")) {
		case "me":
			ws[i] = "the user"
		case "my":
			ws[i] = "the user's"
		case "i":
			ws[i] = "the user"
		case "i'm":
			ws[i] = "the user is"
		}
	}
	return strings.Join(ws, " ")
}

func cutRuleZH(raw string) (string, int) {
	end := len(raw)
	for _, stop := range []string{"。", "!", "?", ";", "吗", "好吗", "可以吗", "行吗"} {
		if i := strings.Index(raw, stop); i >= 0 && i < end {
			end = i
		}
	}
	// A comma ends the rule unless a condition comes before it.
	for from := 0; from < end; {
		i := strings.IndexByte(raw[from:end], ',')
		if i < 0 {
			break
		}
		i += from
		before := raw[:i]
		if !(strings.HasSuffix(before, "时") || strings.HasSuffix(before, "时候") || strings.HasSuffix(before, "的话")) {
			end = i
			break
		}
		from = i + 1
	}
	return trimObject(raw[:end], true), end
}

// ruleVerbsZH: a Chinese rule must ask for something ("以后再说" does not).
var ruleVerbsZH = []string{"用", "回复", "回答", "说话", "语气", "口气", "叫我", "称呼", "不要", "别", "请", "都要", "一律", "提醒", "记得", "给我",
	"帮我", "写", "少", "多", "避免", "尽量", "不用", "不能", "必须", "应该", "只", "加上", "带上", "先"}

// everyTimeVerbsZH: "每次…" is a rule only with an explicit request ("每次回答都用中文"),
// not a remark ("每次和你聊天都很开心").
var everyTimeVerbsZH = []string{"请", "不要", "别", "提醒我", "记得", "都用", "回复", "回答", "要用", "都要", "先"}

func validRule(body string, zh bool, head string) bool {
	if candidate.LooksLikeQuestion(body) {
		return false // "In the future, can I ask you to…?": a question, not a rule
	}
	if zh {
		return validRuleZH(body, head)
	}
	return validRuleEN(strings.Fields(body), head)
}

// notRequestsZH open a clause after "以后" that asks for nothing ("以后再说", "以后有机会…").
var notRequestsZH = []string{"再", "见", "有空", "有机会", "聊", "还是", "也许", "可能", "会"}

func validRuleZH(body, head string) bool {
	if n := utf8.RuneCountInString(body); n < 2 || n > 60 {
		return false
	}
	// "以后我可以请你…": the user describing their own plans, not a rule.
	if strings.HasPrefix(body, "我") && !hasAnyPrefix(body, "我希望", "我要求", "我需要你") {
		return false
	}
	if strings.HasSuffix(head, "每次") {
		return containsAny(body, everyTimeVerbsZH...)
	}
	return !hasAnyPrefix(body, notRequestsZH...) && containsAny(body, ruleVerbsZH...)
}

// notRulesEN open what follows "always"/"never" without asking for anything
// ("never mind", "never again", "never been").
var notRulesEN = toSet(`mind mind, again before been`)

func validRuleEN(ws []string, head string) bool {
	if len(ws) < 2 || len(ws) > 25 {
		return false
	}
	first := strings.ToLower(ws[0])
	if notRulesEN[first] {
		return false
	}
	// "Always use metric units" is an instruction; "(he) always maintained…" or
	// "always makes me happy" describe something.
	if hasAnySuffix(strings.ToLower(strings.TrimSpace(head)), "always", "never", "ever") {
		return !(strings.HasSuffix(first, "ed") || strings.HasSuffix(first, "s") && !strings.HasSuffix(first, "ss"))
	}
	return true
}

// applyReminder keeps "remind me to X when Y" / "Y时提醒我X" as a constraint.
func (p *pattern) applyReminder(m *match, rest string) ([]draft, int, bool) {
	end := len(rest)
	if m.zh {
		for _, stop := range []string{"。", "!", "?", ";"} {
			if i := strings.Index(rest, stop); i >= 0 && i < end {
				end = i
			}
		}
	} else {
		_, end = cutObject(rest, false, false)
		// the reminder clause legitimately contains a comma ("When it rains, remind me…")
		if low := candidate.LowerASCII(rest); strings.Contains(low[end:], "remind me") {
			end = len(rest)
		}
	}
	clause := trimObject(rest[:end], m.zh)
	// The key names the action ("take an umbrella", "带伞"), whichever way round the
	// user put the condition.
	action := m.group(1)
	if m.zh {
		action = m.group(2)
	} else if action == "" {
		action = m.group(4)
	}
	var content string
	if m.zh {
		content = sentenceZH(thirdPersonZH(clause))
	} else {
		content = sentenceEN(objectRuleEN(clause))
	}
	return []draft{p.draft("rule.remind."+slugOf(trimObject(action, m.zh)), content)}, end, true
}

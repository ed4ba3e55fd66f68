package rules

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"engram/domain/candidate"
)

// Text surgery for the rule extractor: finding where an object ends, splitting lists,
// and turning the user's own words into a third-person statement.

// discourseEN/ZH are openers skipped before a clause is matched ("By the way, I…").
var discourseEN = []string{"by the way", "btw", "to be honest", "honestly", "frankly", "actually", "in fact",
	"also", "and", "but", "oh", "well", "besides", "so", "plus", "anyway", "of course", "yes", "yeah", "no",
	"okay", "ok", "hi", "hello", "hey", "um", "hmm", "personally", "just so you know", "fyi", "as you know",
	"lately", "recently", "these days", "nowadays", "now", "oh and", "and also", "so yeah", "sure", "you know that", "you know", "as you may know"}
var discourseZH = []string{"其实", "另外", "而且", "不过", "但是", "所以", "嗯", "对了", "顺便说一下", "顺便说", "说实话",
	"老实说", "还有", "此外", "最近", "平时", "除此之外", "好的", "是的", "对", "哈哈", "你好", "嗨", "哦", "啊", "那",
	"然后", "同时", "另外呢", "总之", "因为", "确实", "是啊", "恩", "今年", "现在", "当然", "其实呢", "说起来", "你知道", "你也知道", "你知道的"}

// hedgesEN/ZH weaken what follows ("I think I like…"): confidence drops by hedgePenalty.
var hedgesEN = []string{"i think", "i guess", "i suppose", "maybe", "perhaps", "probably", "i believe", "i feel like", "kind of", "sort of"}
var hedgesZH = []string{"我觉得", "我认为", "我猜", "可能", "也许", "大概", "好像", "或许", "应该"}

const hedgePenalty = 0.2

// hypotheticalEN/ZH open clauses that do not state a fact ("if I like it…").
var hypotheticalEN = []string{"if", "when", "whenever", "unless", "whether", "once", "until", "before", "after", "while", "in case"}
var hypotheticalZH = []string{"如果", "要是", "假如", "万一", "等到", "除非", "每当", "当我", "当你"}

// skipOpeners moves i past spaces, punctuation, discourse markers and hedges.
func skipOpeners(low string, i int) (int, bool) {
	hedged := false
	for {
		j := skipSpacePunct(low, i)
		rest := low[j:]
		moved := false
		for _, lists := range [][]string{hedgesEN, hedgesZH} {
			if p := prefixWord(rest, lists); p != "" {
				hedged, j, moved = true, j+len(p), true
				break
			}
		}
		if !moved {
			if p := prefixWord(rest, discourseEN); p != "" {
				j, moved = j+len(p), true
			} else if p := prefixWord(rest, discourseZH); p != "" && opensStatementZH(low[skipSpacePunct(low, j+len(p)):]) {
				j, moved = j+len(p), true
			}
		}
		if !moved {
			return j, hedged
		}
		i = j
	}
}

// opensStatementZH guards Chinese openers that are also words ("对" in "对花生过敏",
// "那" in "那里"): one is skipped only when a first-person statement or a standing
// request follows it.
func opensStatementZH(after string) bool {
	return opensStatementZHDepth(after, 2)
}

// opensStatementZHDepth also looks past a few more openers ("其实最近我…").
func opensStatementZHDepth(after string, depth int) bool {
	for _, p := range []string{"我", "叫我", "以后", "今后", "记住", "请", "每次", "别忘了", "从现在", "往后"} {
		if strings.HasPrefix(after, p) {
			return true
		}
	}
	if depth > 0 {
		if p := prefixWord(after, discourseZH); p != "" {
			return opensStatementZHDepth(after[skipSpacePunct(after, len(p)):], depth-1)
		}
	}
	return false
}

func skipSpacePunct(s string, i int) int {
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		if !(unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r)) || r == '《' || r == '"' {
			break
		}
		i += w
	}
	return i
}

// prefixWord returns the first phrase that opens s at a word boundary (for Latin
// phrases) or as a plain prefix (for CJK ones).
func prefixWord(s string, phrases []string) string {
	for _, p := range phrases {
		if !strings.HasPrefix(s, p) {
			continue
		}
		if candidate.IsCJK(firstRune(p)) {
			return p
		}
		if len(s) == len(p) {
			return p
		}
		r, _ := utf8.DecodeRuneInString(s[len(p):])
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'') || candidate.IsCJK(r) {
			return p
		}
	}
	return ""
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// clauseEnd is the offset of the next clause break (, ; :) at or after i.
func clauseEnd(s string, i int) int {
	if j := strings.IndexAny(s[i:], ",;:、"); j >= 0 {
		if strings.HasPrefix(s[i+j:], "、") {
			// a list separator, not a clause break: look further
			return clauseEnd(s, i+j+len("、"))
		}
		return i + j
	}
	return len(s)
}

// Objects end at these words: what follows explains or digresses.
var objectStopsEN = []string{" because ", " but ", " which ", " so that ", " so ", " since ", " although ", " though ",
	" when ", " while ", " if ", " especially ", " such as ", " like ", " and i ", " and i'", " and my ", " but i ", " - ", " — ",
	" (", " for example", " e.g.", " except ", " whenever ", " as long as ", " unless ", " and it ", " and that ",
	" and they ", " and you ", " and we ", " and she", " and he ", " and he'", " and her ", " and his ", " and our ",
	" who ", " where ", " lately", " recently", " these days", " nowadays",
	" at the moment", "?", "!", "\""}
var objectStopsZH = []string{",", "，", ";", "；", ":", "：", "因为", "但是", "但", "不过", "所以", "而且", "特别是", "尤其是",
	"尤其", "比如", "例如", "像是", "吗", "呢", "?", "!", "。", "也很", "还有", "并且", "，像"}

// newStatementEN are time words that, after "and", start a new statement ("I love
// jazz and tonight I'm going to a concert").
var newStatementEN = toSet(`tomorrow tonight today yesterday this next later then tmr soon now last`)

// commaBreakWordsEN are words that, after a comma, start a new clause rather than
// the next item of a list.
var commaBreakWordsEN = toSet(`i you he she we they it what how why when where who which can could would do does did is
	are was were but so because especially though although since as that please thanks thank by anyway also and
	if my your there this then do any don't not let's let`)

// cutObject finds where the object that starts raw ends. In a question it ends at
// the first comma; otherwise a comma followed by a clause opener ends it, while a
// comma followed by another noun continues a list.
func cutObject(raw string, zh, question bool) (string, int) {
	low := candidate.LowerASCII(raw) // same length as raw: offsets carry over
	end := firstObjectStop(low, zh)
	if zh {
		end = timeBreakZH(low, end)
	} else {
		end = commaBreakEN(low, andBreakEN(low, end), question)
	}
	return trimObject(raw[:end], zh), end
}

// firstObjectStop is the offset of the first word or mark after which the object
// explains or digresses (len(low) when there is none).
func firstObjectStop(low string, zh bool) int {
	end := len(low)
	stops := objectStopsEN
	if zh {
		stops = objectStopsZH
	}
	for _, s := range stops {
		if i := strings.Index(low, s); i >= 0 && i < end {
			end = i
		}
	}
	if i := strings.IndexAny(low, ";:"); i >= 0 && i < end {
		end = i
	}
	return end
}

// timeBreakZH: "护士明天要上夜班": a time phrase inside a Chinese object opens the next
// statement ("明天要上夜班"); at its start it qualifies the object and stays.
func timeBreakZH(low string, end int) int {
	if w := candidate.TimeWindow(low[:end]); w != "" {
		if i := strings.Index(low[:end], w); i > 0 {
			return i
		}
	}
	return end
}

// andBreakEN: "Berlin and work at Siemens", "jazz and tonight I'm going…": "and"
// before a verb of the user's or a time word starts a new statement.
func andBreakEN(low string, end int) int {
	for from := 0; from < end; {
		i := strings.Index(low[from:end], " and ")
		if i < 0 {
			break
		}
		i += from
		if next := strings.Fields(low[i+len(" and "):]); len(next) > 0 && opensStatementEN(next[0]) {
			return i
		}
		from = i + 1
	}
	return end
}

// opensStatementEN reports whether a word after "and" starts a statement of its own.
func opensStatementEN(w string) bool {
	return carryVerbsEN[w] && w != "also" || newStatementEN[strings.Trim(w, ",")]
}

// commaBreakEN is the offset of the first comma that ends the object: any comma in
// a question, else one before a clause opener (one that does not close a list).
func commaBreakEN(low string, end int, question bool) int {
	for from := 0; from < end; {
		i := strings.IndexByte(low[from:end], ',')
		if i < 0 {
			break
		}
		i += from
		if question || commaOpensClauseEN(strings.Fields(low[i+1:])) {
			return i
		}
		from = i + 1
	}
	return end
}

// commaOpensClauseEN looks at the words after a comma: nothing, or a clause opener
// that does not close a list, ends the object.
func commaOpensClauseEN(next []string) bool {
	return len(next) == 0 || commaBreakWordsEN[strings.Trim(next[0], ".,!?")] && !closesListEN(next)
}

// closesListEN: ", and reading poetry" closes a list; ", and I…" starts a clause.
func closesListEN(next []string) bool {
	return len(next) > 1 && (next[0] == "and" || next[0] == "or") && !commaBreakWordsEN[strings.Trim(next[1], ".,!?")] &&
		!carryVerbsEN[next[1]] && !newStatementEN[next[1]] && !enAdverbs[next[1]]
}

var trailingEN = []string{"very much", "so much", "a lot", "the most", "too", "as well", "really", "very", "though",
	"anyway", "either", "also", "in particular", "lately", "recently", "best", "more", "now", "a bit", "quite a bit"}
var trailingZH = []string{"了", "的", "啊", "呀", "哦", "吧", "啦", "呢", "哈", "嘛", "而已", "也", "一些", "得很", "极了", "多了"}

// trimObject drops trailing fillers ("very much", "了") and surrounding spaces and
// sentence punctuation, but keeps title marks and quotes that belong to a name.
func trimObject(s string, zh bool) string {
	for {
		s = strings.TrimRight(strings.TrimSpace(s), ".,!?;:~…、。，！？；：")
		s = strings.TrimLeft(s, ".,!?;:~…、。，！？；： ")
		before := s
		low := candidate.LowerASCII(s)
		if zh {
			for _, t := range trailingZH {
				if strings.HasSuffix(s, t) && len(s) > len(t) {
					s = s[:len(s)-len(t)]
					break
				}
			}
		} else {
			for _, t := range trailingEN {
				if strings.HasSuffix(low, " "+t) {
					s = s[:len(s)-len(t)-1]
					break
				}
			}
		}
		if s == before {
			return s
		}
	}
}

// splitList splits "painting, playing piano and tea tasting" or "绘画、弹钢琴和品茶"
// into items; a plain "A and B" without a list separator stays one item, except in
// Chinese when both halves are known objects ("旅游和看电影").
func splitList(obj string, zh bool) []string {
	if zh {
		return cleanItems(listPartsZH(obj), true)
	}
	return cleanItems(listPartsEN(obj), false)
}

func listPartsZH(obj string) []string {
	if hasAnyPrefix(obj, "在", "去", "到", "跟") {
		return []string{obj} // "在海滩、山脉和湖泊附近拍摄": the list is inside a phrase
	}
	if strings.Contains(obj, "、") {
		parts := strings.Split(obj, "、")
		last := parts[len(parts)-1]
		return append(parts[:len(parts)-1], splitZHAnd(last)...)
	}
	if halves := splitZHAnd(obj); len(halves) == 2 && knownZH(halves[0]) && knownZH(halves[1]) {
		return halves
	}
	return []string{obj}
}

func listPartsEN(obj string) []string {
	if !strings.Contains(obj, ", ") {
		return []string{obj}
	}
	parts := strings.Split(obj, ", ")
	last := parts[len(parts)-1]
	for _, sep := range []string{" and ", " or "} {
		if i := strings.LastIndex(last, sep); i > 0 {
			return append(parts[:len(parts)-1], last[:i], last[i+len(sep):])
		}
	}
	return parts
}

// cleanItems trims the parts of a list and keeps at most six: a longer list is a
// digression, not six things the user likes.
func cleanItems(parts []string, zh bool) []string {
	out := parts[:0]
	infinitive := !zh && strings.HasPrefix(strings.ToLower(strings.TrimSpace(parts[0])), "to ")
	for i, p := range parts {
		if p = cleanItem(p, zh, infinitive && i > 0); p != "" {
			out = append(out, p)
		}
		if len(out) == 6 {
			break
		}
	}
	return out
}

// cleanItem trims one list item; infinitive says the list opened with "to …", so
// the item gets the "to" back ("to listen to music, read books" → "to read books").
func cleanItem(p string, zh, infinitive bool) string {
	p = strings.TrimSpace(p)
	p = strings.TrimPrefix(p, "and ")
	p = strings.TrimPrefix(p, "or ")
	if zh {
		if j := strings.Index(p, "等"); j > 0 {
			p = p[:j] // "枪与玫瑰等摇滚乐队" → 枪与玫瑰
		}
	} else if infinitive && !strings.HasPrefix(strings.ToLower(p), "to ") {
		p = "to " + p
	}
	return trimObject(p, zh)
}

func splitZHAnd(s string) []string {
	for _, sep := range []string{"以及", "还有", "和", "及"} {
		if i := strings.Index(s, sep); i > 0 && i+len(sep) < len(s) {
			return []string{s[:i], s[i+len(sep):]}
		}
	}
	return []string{s}
}

func knownZH(s string) bool {
	_, ok := zhSlugs[stripZHVerb(s)]
	return ok
}

func stripZHVerb(s string) string {
	if _, ok := zhSlugs[s]; ok {
		return s
	}
	for _, v := range zhVerbs {
		if rest := strings.TrimPrefix(s, v); rest != s && rest != "" {
			if _, ok := zhSlugs[rest]; ok {
				return rest
			}
		}
	}
	return s
}

// Objects that point at something said before cannot be remembered on their own.
var deicticEN = toSet(`it this that these those them him her you your yours his their its what how when where
	which who something anything everything nothing some one ones such doing going there here myself yourself`)
var deicticZH = []string{"它", "这", "那", "你", "他", "她", "什么", "哪", "怎么", "人", "上了", "一下", "过", "的"}

// validObject refuses objects that refer back ("it", "the plot", "这个"), run long
// (a clause, not a thing), or are empty.
func validObject(obj string, zh bool) bool {
	if obj == "" || strings.ContainsAny(obj, "?？") {
		return false
	}
	if zh || candidate.IsCJK(firstRune(obj)) {
		return utf8.RuneCountInString(obj) <= 14 && !hasAnyPrefix(obj, deicticZH...)
	}
	return validObjectEN(strings.Fields(obj))
}

func validObjectEN(ws []string) bool {
	if len(ws) == 0 || len(ws) > 12 {
		return false
	}
	first := strings.ToLower(strings.Trim(ws[0], `"'`))
	if deicticEN[first] || first == "allergic" {
		// "allergic to peanuts, really allergic": the predicate said again for
		// emphasis is not one more allergen.
		return false
	}
	for _, w := range ws[1:] {
		if refersBackEN[strings.ToLower(strings.Trim(w, ".,"))] {
			return false // "to match it with…": refers to something said before
		}
	}
	// "the plot" refers to something; "The Beatles" names something.
	return !(ws[0] == "the" && len(ws) > 1 && unicode.IsLower(firstRune(ws[1])))
}

// refersBackEN are pronouns that, inside an object, point at something said before.
var refersBackEN = toSet(`it them this that these those`)

// enAdverbs may stand between "I" and the verb.
var enAdverbs = toSet(`really also truly absolutely just still especially totally quite particularly genuinely
	simply sincerely always usually often normally regularly never rarely generally typically currently now
	much strongly definitely kind of sort of very deeply personally mostly no longer recently finally already actually
	since once`)

// thirdPersonEN rewrites the head of a first-person clause: "I really like" → "User
// really likes", "I'm allergic to" → "User is allergic to", "My name is" → "User's
// name is".
func thirdPersonEN(head string) string {
	ws := strings.Fields(head)
	if len(ws) == 0 {
		return "User"
	}
	first := strings.ToLower(ws[0])
	rest := ws[1:]
	if subject, ok := contractedSubjectsEN[first]; ok {
		return strings.TrimSpace(subject + strings.Join(swapPronounsEN(rest), " "))
	}
	if first != "i" && first != "we" {
		return strings.Join(swapPronounsEN(ws), " ")
	}
	// The first word after the subject that is no adverb is the verb.
	out := []string{"User"}
	conjugated := false
	for _, w := range rest {
		if conjugated || enAdverbs[strings.ToLower(w)] {
			out = append(out, w)
			continue
		}
		conjugated = true
		out = append(out, conjugateEN(w))
	}
	return strings.Join(swapPronounsEN(out), " ")
}

// contractedSubjectsEN are first-person openers that carry their verb: the
// third-person subject and verb that replace them.
var contractedSubjectsEN = map[string]string{"my": "User's ", "i'm": "User is ", "i've": "User has ", "i'd": "User would ",
	"we've": "User has ", "we're": "User is "}

// conjugatedEN are verbs whose third person is irregular; keptVerbsEN stay as they
// are (modals, past forms).
var conjugatedEN = map[string]string{"am": "is", "have": "has", "do": "does", "don't": "doesn't", "dont": "doesn't", "were": "was"}
var keptVerbsEN = toSet(`was can't cannot can will would could should must didn't won't`)

// conjugateEN puts the verb after "I" in the third person: "like" → "likes",
// "moved" stays ("User moved to").
func conjugateEN(w string) string {
	lw := strings.ToLower(w)
	if c, ok := conjugatedEN[lw]; ok {
		return c
	}
	if keptVerbsEN[lw] || strings.HasSuffix(lw, "ed") || pastEN[lw] {
		return w
	}
	return verbS(w)
}

// pastEN are irregular past forms that stay as they are in the third person.
var pastEN = toSet(`grew got went took became had began bought left made met ran saw spent taught won wrote found came
	gave knew built lost sold started quit`)

// verbS is the third person singular of a regular verb.
func verbS(v string) string {
	lv := strings.ToLower(v)
	switch {
	case lv == "go" || lv == "do":
		return v + "es"
	case strings.HasSuffix(lv, "y") && len(lv) > 2 && !strings.ContainsRune("aeiou", rune(lv[len(lv)-2])):
		return v[:len(v)-1] + "ies"
	case strings.HasSuffix(lv, "s") || strings.HasSuffix(lv, "sh") || strings.HasSuffix(lv, "ch") || strings.HasSuffix(lv, "x") || strings.HasSuffix(lv, "z"):
		return v + "es"
	}
	return v + "s"
}

var pronounsEN = map[string]string{"my": "their", "me": "them", "mine": "theirs", "myself": "themselves", "i": "they", "i'm": "they're"}

func swapPronounsEN(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		if r, ok := pronounsEN[strings.ToLower(w)]; ok && i > 0 {
			out[i] = r
			continue
		}
		out[i] = w
	}
	return out
}

// objectEN swaps first-person pronouns inside an object ("my father's company" →
// "their father's company").
func objectEN(obj string) string {
	ws := strings.Fields(obj)
	for i, w := range ws {
		if r, ok := pronounsEN[strings.ToLower(w)]; ok {
			ws[i] = r
		}
	}
	return strings.Join(ws, " ")
}

// thirdPersonZH replaces 我 (not 我们) with 用户; a statement opening with 我们家 is
// about the user's household ("我们家养了两只猫" → "用户家养了两只猫").
func thirdPersonZH(s string) string {
	if rest, ok := strings.CutPrefix(s, "我们家"); ok {
		s = "用户家" + rest
	} else if rest, ok := strings.CutPrefix(s, "我们"); ok && strings.ContainsRune("住搬养有在前去刚也", firstRune(rest)) {
		s = "用户一家" + rest // "我们住在杭州" → "用户一家住在杭州"
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], "我们") {
			b.WriteString("我们")
			i += len("我们")
			continue
		}
		if strings.HasPrefix(s[i:], "我") {
			b.WriteString("用户")
			i += len("我")
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r)
		i += w
	}
	return b.String()
}

// sentenceEN capitalises and ends a statement with a period.
func sentenceEN(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	r, w := utf8.DecodeRuneInString(s)
	s = string(unicode.ToUpper(r)) + s[w:]
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "!") {
		s += "."
	}
	return s
}

func sentenceZH(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	s = strings.TrimRight(s, ".,!;:，。！；：")
	return zhPunct.Replace(s) + "。"
}

// zhPunct restores the Chinese punctuation that Fold turned into ASCII.
var zhPunct = strings.NewReplacer(",", "，", ";", "；", ":", "：", "?", "？", "!", "！", "(", "（", ")", "）")

func hasCJK(s string) bool {
	for _, r := range s {
		if candidate.IsCJK(r) {
			return true
		}
	}
	return false
}

func hasAnyPrefix(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func hasAnySuffix(s string, suffixes ...string) bool {
	for _, p := range suffixes {
		if strings.HasSuffix(s, p) {
			return true
		}
	}
	return false
}

func containsAny(s string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

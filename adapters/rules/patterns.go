package rules

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"engram/domain/candidate"
	"engram/domain/memory"
)

// kind is how a pattern turns its match into candidates.
type kind int

const (
	kindObject   kind = iota // head + object (possibly a list): one candidate per item
	kindWhole                // the match itself is the statement ("I'm vegetarian")
	kindRemember             // "remember …": extract what follows, with more confidence
	kindRule                 // "from now on …", "always …", "以后都…": a standing constraint
	kindReminder             // "remind me to X when Y": a conditional standing constraint
	kindCustom               // custom builds the drafts (a role and a workplace, a relative's name)
)

// pattern is one trigger. re is matched at the start of a clause of lower-cased
// text; the object is submatch group (when > 0) or whatever follows the match.
type pattern struct {
	name  string
	re    *regexp.Regexp
	kind  kind
	typ   memory.Type
	conf  float64
	imp   int
	group int
	// sentenceStart: only at the start of a sentence ("Always use metric units", not
	// "…, always smiling").
	sentenceStart bool
	// afterGreeting: only in a sentence that opened with a greeting ("Hello, I'm
	// Gary." names the user; "I'm Chinese." does not).
	afterGreeting bool
	// op is candidate.OpDelete for retractions ("I no longer eat meat"); empty is ADD.
	op candidate.Op
	// wholeObject: the object is one value even when it lists ("my favorite genres
	// are rock and pop").
	wholeObject bool
	// key names the memory for one object item; ok=false rejects the item (e.g.
	// "I'm a bit tired" is not a profession).
	key func(m *match) (key string, ok bool)
	// content overrides the default "head + object" statement.
	content func(m *match) string
	// trim cleans the object before it is checked ("Berlin last year" → "Berlin").
	trim func(obj string) string
	// custom builds the drafts of a kindCustom pattern from the match; it returns
	// how much of rest it consumed, ok=false when the pattern does not fit after all.
	custom func(m *match, rest string, loc []int) ([]draft, int, bool)
	// splitAnd: a plain "A and B" / "A和B" is two objects ("allergic to penicillin and
	// latex"), not one.
	splitAnd bool
	// place: the object may be a described place ("the city library").
	place bool
	// noSynthetic: not applied to a clause whose subject the user left out (names:
	// "我养了一只猫，叫咪咪" does not name the user).
	noSynthetic bool
	// noCarry: a subjectless clause after this one is not the user's ("My daughter
	// Emma loves horses", "我女儿叫小美，喜欢马").
	noCarry bool
	// relativeCarry: after this statement about a relative, a clause that opens with
	// another relative is still the user's ("我儿子四岁，女儿七岁").
	relativeCarry bool
	// conditional: a standing rule that opens with its condition ("跟我聊天的时候…",
	// "When you talk to me, …"); not skipped as a hypothetical.
	conditional bool
	// zh is set at init for patterns written in Chinese: a pattern is tried only on
	// clauses of its own script.
	zh bool
	// first holds the runes a match can start with (nil: any), set at init.
	first map[rune]bool
}

// match is what a pattern found in one clause.
type match struct {
	head   string   // the matched text, original case
	groups []string // submatches, lower case
	item   string   // the current object item, original case
	zh     bool
}

func (m *match) group(i int) string {
	if i < len(m.groups) {
		return m.groups[i]
	}
	return ""
}

func re(s string) *regexp.Regexp { return regexp.MustCompile(`^(?:` + s + `)`) }

// slugOf gives an object's key segment: an English slug of a known Chinese word, the
// ASCII words of the object, or a hash.
func slugOf(obj string) string {
	obj = strings.TrimSpace(obj)
	if hasCJK(obj) {
		if s, ok := zhSlugs[stripZHVerb(obj)]; ok {
			return s
		}
		for _, e := range zhSlugsByLength {
			// "很多川菜", "各种爵士乐": a short qualifier before a known object
			// One-character entries (茶, 菜, 鱼) are too generic to match as a suffix:
			// 中国菜 and 家常菜 would share a key.
			if n := utf8.RuneCountInString(e.zh); n >= 2 && strings.HasSuffix(obj, e.zh) && utf8.RuneCountInString(obj)-n <= 2 {
				return e.slug
			}
		}
	}
	return candidate.Slug(obj)
}

// zhSlugsByLength is zhSlugs for suffix look-ups, longest first so 乌龙茶 beats 茶.
var zhSlugsByLength = func() []struct{ zh, slug string } {
	var out []struct{ zh, slug string }
	for zh, s := range zhSlugs {
		out = append(out, struct{ zh, slug string }{zh, s})
	}
	for i := 1; i < len(out); i++ { // insertion sort: small list, no sort import needed for one init
		for j := i; j > 0 && (len(out[j].zh) > len(out[j-1].zh) || len(out[j].zh) == len(out[j-1].zh) && out[j].zh < out[j-1].zh); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}()

func relationKey(relation string) func(m *match) (string, bool) {
	return func(m *match) (string, bool) {
		if relation == "likes" && unpleasant(m.item) {
			return "", false // "I just love waiting in line": not a taste
		}
		if isRelative(m.item) {
			return "", false // "I love my wife": a person, not a taste
		}
		if k := answerAspect(m.item); k != "" {
			return k, true // "我喜欢简短直接的回答": how to reply, a reply slot
		}
		s := slugOf(m.item)
		d := domainOf(s)
		if d == "interest" && hasCJK(m.item) {
			d = zhDomain(m.item)
		}
		if s == d {
			return d + "." + relation, true
		}
		return d + "." + relation + "." + s, true
	}
}

func fixedKey(k string) func(m *match) (string, bool) {
	return func(*match) (string, bool) { return k, true }
}

func familyKey(family string) func(m *match) (string, bool) {
	return func(m *match) (string, bool) { return family + "." + slugOf(m.item), true }
}

// homeKey is home.city for a named place ("Berlin", "武汉") and home.location for a
// description ("a small apartment", "一个小区").
func homeKey(m *match) (string, bool) {
	r := []rune(m.item)
	if len(r) == 0 {
		return "", false
	}
	if m.zh || candidate.IsCJK(r[0]) {
		if strings.HasPrefix(m.item, "一") || strings.HasPrefix(m.item, "这") || strings.HasPrefix(m.item, "那") {
			return "home.location", true
		}
		return "home.city", true
	}
	if unicode.IsUpper(r[0]) {
		return "home.city", true
	}
	// "a small apartment near the park", "the suburbs"; not "a bubble" or "fear".
	low := strings.ToLower(m.item)
	for _, w := range homeWordsEN {
		if containsWordASCII(low, w) {
			return "home.location", true
		}
	}
	return "", false
}

var homeWordsEN = []string{"apartment", "house", "flat", "town", "city", "village", "suburb", "suburbs", "countryside",
	"neighborhood", "neighbourhood", "building", "dorm", "dormitory", "studio", "condo", "area", "district", "street",
	"farm", "cottage", "complex", "hometown", "coast", "island", "state", "country", "region", "province", "cabin",
	"bungalow", "townhouse", "loft", "home", "outskirts", "downtown", "center", "centre"}

func professionEN(m *match) (string, bool) {
	ws := strings.Fields(strings.ToLower(m.item))
	if len(ws) == 0 || len(ws) > 4 || !professions[strings.Trim(ws[len(ws)-1], ".,")] {
		return "", false
	}
	return "work.role", true
}

func professionZH(m *match) (string, bool) {
	for _, s := range zhProfessionSuffixes {
		if strings.HasSuffix(m.item, s) {
			return "work.role", true
		}
	}
	return "", false
}

// petOrFamily accepts "a dog", "two lovely cats", "a daughter named Anna".
func petOrFamily(m *match) (string, bool) {
	ws := strings.Fields(strings.ToLower(m.item))
	for i, w := range ws {
		if i > 3 {
			break
		}
		w = strings.Trim(w, ".,")
		single := strings.TrimSuffix(w, "s")
		if w == "children" {
			single = "child"
		}
		if w == "puppies" {
			single = "puppy"
		}
		if pets[w] {
			return "pet." + single, true
		}
		if relatives[w] {
			return "family." + single, true
		}
	}
	return "", false
}

func petZH(m *match) (string, bool) {
	if a, ok := dogAndCatBreedsZH[m.group(1)]; ok {
		return "pet." + a, true
	}
	if m.group(1) == "马" && !strings.Contains(m.head, "匹") {
		return "", false // "我有马上要做的事": not a horse
	}
	if s, ok := zhSlugs[strings.TrimSuffix(strings.TrimSuffix(m.group(1), "狗"), "咪")]; ok && m.group(1) != "狗狗" {
		return "pet." + s, true
	}
	switch m.group(1) {
	case "狗狗":
		return "pet.dog", true
	case "猫咪":
		return "pet.cat", true
	}
	if s, ok := zhSlugs[m.group(1)]; ok {
		return "pet." + s, true
	}
	return "pet." + slugOf(m.group(1)), true
}

// dogAndCatBreedsZH name the animal by its breed ("一只金毛" is a dog).
var dogAndCatBreedsZH = map[string]string{"金毛": "dog", "柯基": "dog", "哈士奇": "dog", "泰迪": "dog", "拉布拉多": "dog",
	"柴犬": "dog", "边牧": "dog", "比熊": "dog", "萨摩耶": "dog", "英短": "cat", "美短": "cat", "布偶猫": "cat", "布偶": "cat",
	"橘猫": "cat", "暹罗猫": "cat"}

var breedsZH = relationAlternation(dogAndCatBreedsZH)

// answerAspect is the reply slot of a liked or disliked way of answering ("short,
// direct answers", "简短直接的回答"), "" when the object is not about answers.
func answerAspect(obj string) string {
	low := strings.ToLower(obj)
	for _, w := range []string{"answer", "reply", "replies", "response", "回答", "回复", "答复"} {
		if strings.Contains(low, w) {
			return replyAspect(obj)
		}
	}
	return ""
}

// isRelative reports whether an object is one of the user's relatives ("my wife",
// "我的女儿", "my family").
func isRelative(obj string) bool {
	low := strings.ToLower(strings.TrimSpace(obj))
	if rest, ok := strings.CutPrefix(low, "my "); ok {
		ws := strings.Fields(rest)
		for _, w := range ws {
			w = strings.TrimSuffix(strings.TrimRight(w, ".,!?;:"), "'s")
			if relationsEN[w] != "" || relationsEN[strings.TrimSuffix(w, "s")] != "" || w == "family" || w == "parents" || w == "children" || w == "kids" {
				return true
			}
			if !enAdverbs[w] && w != "little" && w != "big" && w != "younger" && w != "older" {
				break
			}
		}
		return false
	}
	r := strings.TrimPrefix(strings.TrimPrefix(low, "我的"), "我")
	if r == low {
		return false
	}
	for w := range relationsZH {
		if strings.HasPrefix(r, w) && utf8.RuneCountInString(r) <= utf8.RuneCountInString(w)+1 {
			return true
		}
	}
	return r == "家人" || r == "父母"
}

// petNamedZH: "我家的狗叫豆豆" (not "我家的狗叫个不停").
func petNamedZH(m *match) (string, bool) {
	if !validNameZH(m.item) {
		return "", false
	}
	return petZH(m)
}

func relativeZH(m *match) (string, bool) {
	if s, ok := zhSlugs[m.group(1)]; ok {
		return "family." + s, true
	}
	return "family." + slugOf(m.group(1)), true
}

// nameValue accepts a plausible name: one to three words or up to six CJK characters.
func nameKey(k string) func(m *match) (string, bool) {
	return func(m *match) (string, bool) {
		if hasCJK(m.item) {
			n := len([]rune(m.item))
			if n > 6 || strings.ContainsAny(m.item, "了过你他她去来做帮回吃起") {
				return "", false
			}
			return k, true
		}
		ws := strings.Fields(m.item)
		if len(ws) == 0 || len(ws) > 3 {
			return "", false
		}
		switch strings.ToLower(ws[0]) {
		case "back", "later", "when", "if", "tomorrow", "tonight", "anytime", "now", "and", "to", "at", "on":
			return "", false
		}
		return k, true
	}
}

func projectEN(m *match) (string, bool) {
	low := strings.ToLower(m.item)
	for _, marker := range []string{" called ", " named "} {
		if i := strings.Index(low, marker); i >= 0 {
			return "project." + candidate.Slug(low[i+len(marker):]), true
		}
	}
	for _, w := range []string{"project", "app", "application", "website", "site", "startup", "library", "framework",
		"game", "novel", "book", "thesis", "dissertation", "platform", "tool", "service", "company", "business", "podcast", "channel",
		"bakery", "shop", "store", "cafe", "café", "restaurant", "studio", "agency", "blog", "newsletter", "clinic", "farm",
		"salon", "firm", "consultancy", "nonprofit", "charity"} {
		if containsWordASCII(low, w) {
			return "project." + candidate.Slug(strings.ReplaceAll(low, w, " ")+" "+w), true
		}
	}
	// A named thing ("I'm building Engram") is a project too.
	for i, w := range strings.Fields(m.item) {
		if i > 0 || !deicticEN[strings.ToLower(w)] {
			if r := firstRune(w); unicode.IsUpper(r) {
				return "project." + candidate.Slug(w), true
			}
		}
	}
	return "", false
}

// businessEN keys what the user runs or founded: a named business ("a bakery called
// Flour & Stone") or one named by what it is ("a small bakery"), not "a new job at
// Google" or "a marathon".
func businessEN(m *match) (string, bool) {
	low := strings.ToLower(m.item)
	if strings.Contains(low, " called ") || strings.Contains(low, " named ") {
		return projectEN(m)
	}
	for _, w := range businessWordsEN {
		if containsWordASCII(low, w) {
			return projectEN(m)
		}
	}
	return "", false
}

var businessWordsEN = []string{"startup", "company", "business", "bakery", "shop", "store", "cafe", "café", "restaurant",
	"studio", "agency", "blog", "newsletter", "clinic", "farm", "salon", "firm", "consultancy", "nonprofit", "charity",
	"podcast", "channel", "website", "app", "bar", "gym", "school", "practice"}

// movedKeyEN: "I moved to Berlin" (home.city), "…to a small town in Ohio" / "…to my
// hometown" (home.location); not "…to a new office" or "…to the next chapter".
func movedKeyEN(m *match) (string, bool) {
	if unicode.IsUpper(firstRune(m.item)) {
		return "home.city", true
	}
	low := strings.ToLower(m.item)
	for _, w := range []string{"town", "city", "village", "countryside", "suburbs", "suburb", "apartment", "house", "flat",
		"neighborhood", "neighbourhood", "hometown", "country", "coast", "island", "state"} {
		if containsWordASCII(low, w) {
			return "home.location", true
		}
	}
	return "", false
}

// workPlaceEN: "I work at the city library"; "I work at home" or "…at night" is no
// workplace.
func workPlaceEN(m *match) (string, bool) {
	switch strings.ToLower(strings.TrimSpace(m.item)) {
	case "home", "night", "nights", "weekends", "the weekend", "myself", "a job":
		return "", false
	}
	return "work.place", true
}

func containsWordASCII(s, w string) bool {
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if f == w || f == w+"s" {
			return true
		}
	}
	return false
}

func favoriteKey(m *match) (string, bool) {
	thing := m.group(1)
	if thing == "" {
		return "", false
	}
	return "favorite." + slugOf(thing), true
}

func birthKey(m *match) (string, bool) {
	if yearRe.MatchString(strings.TrimSpace(m.item)) {
		return "birth.year", true
	}
	return "birthplace", true
}

var yearRe = regexp.MustCompile(`^(19|20)\d\d$`)

func init() {
	for i := range patterns {
		patterns[i].zh = hasCJK(patterns[i].re.String())
		patterns[i].first = firstRunes(patterns[i].re.String())
	}
}

// Patterns, most specific first: the first that matches a clause wins. Each is tried
// only on clauses in its own script (zh, set at init).
var patterns = []pattern{
	// ---- explicit requests --------------------------------------------------------
	{name: "remember", kind: kindRemember, re: re(`(?:please |pls |also |and |oh and )?(?:do )?(?:remember|note|keep in mind|don't forget|do not forget|never forget|make a note)(?: that| this| of this| please)?(?:\s*[:,]|\s|$)`)},
	{name: "记住", kind: kindRemember, re: re(`(?:请|你要|帮我|麻烦你?|一定要|要|你)?(?:记住|记下|记着|记好|别忘了|不要忘了|不要忘记|千万别忘了|记得)(?:吧|哦|啊|了)?(?:\s*[:,])?\s*(?:这一点|这件事|一件事)?`)},
	{name: "remind-when", kind: kindReminder, typ: memory.TypeConstraint, conf: 0.85, imp: 3,
		re: re(`(?:please )?remind me (?:to )?(.+?) (?:when|whenever|if|every time|each time) (.+)|(?:when|whenever|if|every time|each time) (.+?),? (?:please )?remind me (?:to )?(.+)`)},
	{name: "提醒-时", kind: kindReminder, typ: memory.TypeConstraint, conf: 0.85, imp: 3,
		re: re(`(?:每当|如果|要是|每次|当)?(.{1,40}?)(?:时|的时候|时候)\s*,?\s*(?:请|都|就)?(?:提醒我|叫我|告诉我|通知我)(.+)`)},
	{name: "from-now-on", kind: kindRule, typ: memory.TypeConstraint, conf: 0.9, imp: 4,
		re: re(`(?:please )?(?:from now on|going forward|in (?:the )?future|from today on(?:wards?)?|starting (?:today|now)|henceforth|for all future (?:conversations|chats|answers))\b`)},
	{name: "always-never", kind: kindRule, typ: memory.TypeConstraint, conf: 0.85, imp: 4, sentenceStart: true,
		re: re(`(?:please )?(?:always|never|don't ever|do not ever)\s`)},
	{name: "跟我聊天时", kind: kindRule, typ: memory.TypeConstraint, conf: 0.85, imp: 4, conditional: true,
		re: re(`(?:请)?(?:跟我|和我|给我)(?:聊天|说话|交流|对话|回答|回复|写东西)(?:的时候|时)\s*,?\s*`)},
	{name: "when-you-talk-to-me", kind: kindRule, typ: memory.TypeConstraint, conf: 0.85, imp: 4, conditional: true,
		re: re(`when(?:ever)? you (?:talk|speak|chat|write|reply|respond|answer)(?: to| with)?(?: me)?,?\s+`)},
	{name: "所有回复", kind: kindRule, typ: memory.TypeConstraint, conf: 0.85, imp: 4,
		re: re(`(?:你的)?(?:所有|全部|每次|每一次)(?:的)?(?:回复|回答|答复)(?:里|中)?(?:都|也)?`)},
	{name: "in-all-replies", kind: kindCustom, custom: allRepliesEN,
		re: re(`(?:please )?(?:[a-z']+ ){1,8}?(?:in|for|with|to) (?:all|all of|every one of) your (?:replies|answers|responses|messages)\b`)},
	{name: "以后", kind: kindRule, typ: memory.TypeConstraint, conf: 0.9, imp: 4,
		re: re(`(?:请|麻烦)?(?:以后|今后|从现在起|从现在开始|从今天起|从今天开始|往后|每次)`)},

	// ---- identity ---------------------------------------------------------------
	{name: "my-name", typ: memory.TypeFact, conf: 0.9, imp: 4, key: nameKey("name"),
		re: re(`my (?:full )?name(?: is|'s)\s+|i'm called\s+|i am called\s+`)},
	{name: "hi-i-am", kind: kindCustom, custom: hiIAmEN, afterGreeting: true, noSynthetic: true,
		re: re(`i'm\s+|i am\s+|this is\s+`)},
	{name: "你好我是", typ: memory.TypeFact, conf: 0.85, imp: 4, key: greetedNameZH, afterGreeting: true,
		re:      re(`我是`),
		content: func(m *match) string { return "用户叫" + m.item + "。" }},
	{name: "我叫", typ: memory.TypeFact, conf: 0.9, imp: 4, key: nameKey("name"),
		re: re(`我的名字(?:是|叫)|我叫(?:做)?`)},
	{name: "age", typ: memory.TypeFact, conf: 0.85, imp: 3, key: fixedKey("age"), group: 1,
		re: re(`i(?:'m| am) (\d{1,2}(?: years old| years of age| yrs old)?)(?:$|[.,!;]| and\b| but\b)`),
		content: func(m *match) string {
			if strings.Contains(m.item, "year") || strings.Contains(m.item, "yrs") {
				return "User is " + m.item + "."
			}
			return "User is " + m.item + " years old."
		}},
	{name: "岁", typ: memory.TypeFact, conf: 0.85, imp: 3, key: fixedKey("age"), group: 1,
		re:      re(`我(?:今年|现在|已经)?((?:\d{1,3}|[一二三四五六七八九十]{1,3})(?:周)?岁)`),
		content: func(m *match) string { return sentenceZH(thirdPersonZH(m.head)) }},
	{name: "出生年", typ: memory.TypeFact, conf: 0.85, imp: 3, key: fixedKey("birth.year"), group: 1,
		re:      re(`我是((?:19|20)\d\d)年(?:出生|生)的?|我(?:出生于|生于)((?:19|20)\d\d)年`),
		content: func(m *match) string { return sentenceZH(thirdPersonZH(m.head)) }},
	{name: "出生地", typ: memory.TypeFact, conf: 0.85, imp: 3, key: fixedKey("birthplace"),
		re: re(`我(?:出生在|出生于|生在)`)},
	{name: "长大", typ: memory.TypeFact, conf: 0.85, imp: 3, key: fixedKey("hometown"), group: 1,
		re:      re(`我(?:是)?(?:从小)?在(.{1,10}?)长大`),
		content: func(m *match) string { return "用户在" + m.item + "长大。" }},

	// ---- family: a relative's name and relation are facts about the user; what
	// the relative likes or does is not ("My daughter Emma loves horses").
	{name: "relative-named", kind: kindCustom, custom: relativeNamedEN, noCarry: true,
		re: re(`my ` + relAdjEN + `(` + relEN + `)(?:'s name is|'s called| is called| is named|'s name's)\s+`)},
	{name: "relative-and-i", kind: kindCustom, custom: relativeAndIEN,
		re: re(`my ` + relAdjEN + `(` + relEN + `) and (i)\b`)},
	{name: "relative-appos", kind: kindCustom, custom: relativeApposEN, noCarry: true,
		re: re(`my ` + relAdjEN + `(` + relEN + `),? ([a-z])`)},
	{name: "relative-age", kind: kindCustom, custom: relativeAgeEN, noCarry: true,
		re: re(`my ` + relAdjEN + `(` + relEN + `) is (\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen)(?: years old| months old)?(?:$|[.,!;]| and\b| but\b)`)},
	{name: "家人年龄", kind: kindCustom, custom: relativeAgeZH, noCarry: true, relativeCarry: true,
		re: re(`我(?:的)?(` + relZH + `)(?:今年|现在|已经|刚)?((?:\d{1,2}|[一二三四五六七八九十]{1,3})(?:周)?岁)`)},
	{name: "our-kids", kind: kindCustom, custom: ourRelativesEN, noCarry: true,
		re: re(`our (twins|kids|children|son|daughter|baby|boys|girls)\b`)},
	{name: "我家孩子", kind: kindCustom, custom: ourRelativesZH, noCarry: true,
		re: re(`我(?:们)?家(?:的)?(双胞胎|孩子|儿子|女儿|宝宝|老大|老二)`)},
	{name: "家人名字", kind: kindCustom, custom: relativeNamedZH, noCarry: true, relativeCarry: true,
		re: re(`我(?:的)?(` + relZH + `)(的名字(?:是|叫)|名叫|叫做|叫)?`)},
	{name: "我和家人", kind: kindCustom, custom: relativeAndZH,
		re: re(`我(?:和|跟|与)(` + relZH + `)(?:一起)?`)},
	{name: "pet-named", kind: kindCustom, custom: petNamedEN, noCarry: true,
		re: re(`(?:my|our) (dog|cat|puppy|kitten|parrot|rabbit|bunny|hamster|horse|pony|turtle|tortoise|bird|guinea pig|snake|lizard)(?:'s name is| is called| is named|, | named | called | )([a-z])`)},
	{name: "宠物名字", typ: memory.TypeFact, conf: 0.85, imp: 3, key: petNamedZH, noCarry: true, noSynthetic: true,
		re: re(`我(?:们家|家|的)(?:的|里的)?(猫咪|狗狗|小猫|小狗|猫|狗|鹦鹉|仓鼠|兔子|金鱼|乌龟)(?:叫做|名叫|叫)`)},

	// ---- retractions: the memory under the key is no longer true ---------------------
	{name: "no-longer-like", typ: memory.TypePreference, conf: 0.85, imp: 3, key: relationKey("likes"), op: candidate.OpDelete,
		re: re(`i no longer (?:like|love|enjoy)\s+`)},
	{name: "not-anymore", typ: memory.TypePreference, conf: 0.85, imp: 3, key: relationKey("likes"), op: candidate.OpDelete, group: 1,
		re:      re(`i (?:don't|do not)(?: really)? (?:like|love|enjoy) ([a-z0-9' -]+?) any ?more\b`),
		content: func(m *match) string { return "User no longer likes " + m.item + "." }},
	{name: "no-longer-diet", kind: kindWhole, typ: memory.TypeFact, conf: 0.85, imp: 4, key: fixedKey("diet"), op: candidate.OpDelete,
		re: re(`i(?:'m| am) (?:no longer|not) (?:a |an )?(?:vegetarian|vegan|pescatarian)(?: any ?more)?\b`)},
	{name: "不再喜欢", typ: memory.TypePreference, conf: 0.85, imp: 3, key: relationKey("likes"), op: candidate.OpDelete,
		re: re(`我(?:已经|现在)?不再(?:喜欢|爱)`)},
	{name: "不再吃素", kind: kindWhole, typ: memory.TypeFact, conf: 0.85, imp: 4, key: fixedKey("diet"), op: candidate.OpDelete,
		re: re(`我(?:已经|现在)?(?:不再吃素|不吃素了|不再是素食(?:者|主义者))`)},

	// ---- health and diet ----------------------------------------------------------
	{name: "allergic", typ: memory.TypeFact, conf: 0.9, imp: 5, key: familyKey("allergy"),
		splitAnd: true,
		re:       re(`i(?:'m| am)(?: (?:also|very|severely|seriously|highly|quite|a bit|slightly|really|deathly|mildly))? allergic to\s+`)},
	{name: "allergy", kind: kindCustom, custom: allergyHaveEN,
		re: re(`i (?:also )?have (?:an? )?(?:(?:severe|mild|serious|bad|slight|strong|life-threatening|deadly)\s+)?([a-z]+(?: [a-z]+)?) allerg(?:y|ies)(?: and (?:an? )?(?:(?:severe|mild|serious|bad|slight|strong)\s+)?([a-z]+(?: [a-z]+)?) allerg(?:y|ies))?`)},
	{name: "过敏", typ: memory.TypeFact, conf: 0.9, imp: 5, key: familyKey("allergy"), group: 1, splitAnd: true,
		re:      re(`我(?:也|还|从小|一直)?对(.{1,12}?)(?:很|非常|特别|有点|严重|有些)?过敏|我(?:也|还|从小)?有(?:很严重的|严重的|轻微的|轻度|重度|点)?(.{1,8}?)过敏|我(?:也|还)?(.{1,8}?)过敏`),
		content: func(m *match) string { return "用户对" + m.item + "过敏。" }},
	{name: "on-a-diet", kind: kindWhole, typ: memory.TypeFact, conf: 0.85, imp: 4, key: fixedKey("diet"),
		re: re(`i(?:'m| am)(?: (?:currently|now|strictly|also))? on an? (?:strict )?(?:low-carb|low carb|keto|ketogenic|paleo|gluten-free|gluten free|dairy-free|dairy free|low-fat|low fat|low-sodium|low sodium|plant-based|plant based|mediterranean|halal|kosher|low-fodmap|fodmap) diet\b|i (?:follow|eat|keep) (?:an? )?(?:strict )?(?:keto|paleo|halal|kosher|gluten-free|plant-based|low-carb)(?: diet)?\b`)},
	{name: "饮食", kind: kindWhole, typ: memory.TypeFact, conf: 0.85, imp: 4, key: fixedKey("diet"),
		re: re(`我(?:在|正在|一直在|现在|目前)?(?:吃|坚持|进行|保持|执行)?(?:低碳水|低碳|生酮|地中海|无麸质|低脂|低盐|清真|轻断食|断食)(?:饮食)?`)},
	{name: "vegetarian", kind: kindWhole, typ: memory.TypeFact, conf: 0.9, imp: 4, key: fixedKey("diet"),
		re: re(`i(?:'m| am)(?: (?:also|now|strictly|a|an|strict))* (?:vegetarian|vegan|pescatarian|pescetarian)\b|i(?:'ve| have) been (?:a |an )?(?:strict )?(?:vegetarian|vegan|pescatarian|pescetarian)\b`)},
	{name: "素食", kind: kindWhole, typ: memory.TypeFact, conf: 0.9, imp: 4, key: fixedKey("diet"),
		re: re(`我(?:是|现在是)?(?:一个|一名|一位|个)?(?:素食者|素食主义者|吃素的|纯素食者)|我(?:从.{1,8}?(?:开始|起))?(?:现在|一直|从小)?(?:只|开始)?吃(?:纯)?素`)},
	{name: "dont-eat", typ: memory.TypeConstraint, conf: 0.85, imp: 4, key: familyKey("food.avoids"), splitAnd: true,
		re: re(`i (?:don't|do not|can't|cannot|never|no longer) (?:eat|drink)\s+`)},
	{name: "不吃", typ: memory.TypeConstraint, conf: 0.85, imp: 4, key: familyKey("food.avoids"), splitAnd: true,
		re: re(`我(?:从来|从|一直|现在|也|已经)?不(?:太|怎么)?(?:吃|能吃|碰|喝|能喝)`)},
	{name: "health", typ: memory.TypeFact, conf: 0.85, imp: 4, key: healthKeyEN, group: 1,
		re:      re(`i (?:also |still )?(?:have|'ve got|have got|suffer from|was diagnosed with|live with|'ve had|have had)(?: (?:a|an|severe|mild|chronic|bad|serious|moderate))* (` + strings.Trim(healthNounsEN, "|") + `)(?:$|[.,!;:]|\s+(?:and|so|but|which|since|for|too)\b)`),
		content: func(m *match) string { return "User has " + m.item + "." }},
	{name: "health-adj", typ: memory.TypeFact, conf: 0.85, imp: 4, key: healthKeyEN, group: 1,
		re:      re(`i(?:'m| am)(?: (?:also|severely|mildly|slightly|partially|completely|very))* (` + strings.Trim(healthAdjsEN, "|") + `)\b`),
		content: func(m *match) string { return "User is " + m.item + "." }},
	{name: "健康", typ: memory.TypeFact, conf: 0.85, imp: 4, key: healthKeyZH, group: 1,
		re:      re(`我(?:也|还|从小|一直|本身|从小就)?(?:有|患有|得了|得过|是)?(?:严重的|轻微的|轻度|重度|先天性|先天|慢性)?(` + strings.Trim(healthWordsZH, "|") + `)`),
		content: func(m *match) string { return sentenceZH(thirdPersonZH(m.head)) }},

	// ---- likes and dislikes -------------------------------------------------------
	{name: "favorite", typ: memory.TypePreference, conf: 0.85, imp: 3, key: favoriteKey, wholeObject: true,
		re: re(`my (?:all-time |absolute |very )?(?:favorite|favourite) ([a-z][a-z ]{1,30}?) (?:is|are|was)\s+`)},
	{name: "最喜欢的", typ: memory.TypePreference, conf: 0.85, imp: 3, key: favoriteKey, wholeObject: true,
		re: re(`我最喜欢的(.{1,10}?)是`)},
	{name: "not-a-fan", typ: memory.TypePreference, conf: 0.8, imp: 3, key: relationKey("dislikes"),
		re: re(`i(?:'m| am) (?:not|never been) (?:a |really a |much of a |the biggest |a big |a huge )?(?:fan of|into|keen on|fond of)\s+`)},
	{name: "dislike", typ: memory.TypePreference, conf: 0.8, imp: 3, key: relationKey("dislikes"),
		re: re(`i(?: (?:really|just|absolutely|truly|honestly|also|still|kind of|totally|personally))* (?:don't|do not|dont)(?: really| much| particularly)? (?:like|enjoy|love|care for)\s+|i(?: (?:really|absolutely|truly|also|just|totally))* (?:hate|dislike|detest|despise|can't stand|cannot stand)\s+`)},
	{name: "不喜欢", typ: memory.TypePreference, conf: 0.8, imp: 3, key: relationKey("dislikes"),
		re: re(`我(?:真的|很|非常|特别|最|一直|也|还|有点|比较|超|挺|确实|向来|现在)*(?:不喜欢|不爱|讨厌|受不了|不太喜欢|反感|厌恶|不感兴趣)`)},
	{name: "prefer", typ: memory.TypePreference, conf: 0.85, imp: 3, key: prefersKey, wholeObject: true,
		re: re(`i(?: (?:much|really|generally|usually|strongly|would|also|definitely|always|personally|still))* prefer\s+`)},
	{name: "偏好", typ: memory.TypePreference, conf: 0.85, imp: 3, key: prefersKey,
		re: re(`我(?:更|比较|一般|通常|还是)?(?:偏好|偏爱|倾向于|更喜欢|比较喜欢|还是喜欢)`)},
	{name: "like", typ: memory.TypePreference, conf: 0.8, imp: 3, key: relationKey("likes"),
		re: re(`i(?: (?:really|also|truly|absolutely|just|do|still|especially|totally|quite|particularly|genuinely|simply|sincerely|always|very much|kind of|sort of|personally|deeply|definitely))* (?:like|love|enjoy|adore)\s+|i(?:'ve| have)(?: (?:always|really|also|truly|long))* (?:enjoyed|loved|liked)\s+`)},
	{name: "fan", typ: memory.TypePreference, conf: 0.8, imp: 3, key: relationKey("likes"),
		re: re(`i(?:'m| am)(?: (?:also|really|very|quite|so|a|an|big|huge|super|totally|deeply))* (?:fan of|into|fond of|passionate about|obsessed with|keen on|interested in|crazy about)\s+`)},
	{name: "喜欢", typ: memory.TypePreference, conf: 0.8, imp: 3, key: relationKey("likes"),
		re: re(`我(?:真的|很|非常|特别|最|一直|也|还|都|挺|超|比较|超级|十分|尤其|蛮|相当|向来|从小就|从小|就|一直都|本身就|现在|平时|平常|周末)*(?:喜欢|热爱|喜爱|钟爱|迷上了|爱上了|痴迷于|沉迷于|爱)(?:上了)?`)},
	{name: "粉丝", typ: memory.TypePreference, conf: 0.8, imp: 3, key: relationKey("likes"), group: 1,
		re:      re(`我是(.{1,12}?)的(?:忠实|铁杆|超级|资深|狂热|死忠)?(?:粉丝|粉|迷)`),
		content: func(m *match) string { return sentenceZH(thirdPersonZH(m.head)) }},
	{name: "favorite-reversed", kind: kindCustom, custom: favoriteReversedEN,
		re: re(`([a-z0-9][a-z0-9' &.-]{0,40}?) (?:is|are) my (?:all-time |absolute |very )?(?:favorite|favourite) ([a-z][a-z ]{0,30}?)(?:$|[.,!;])`)},
	{name: "感兴趣", typ: memory.TypePreference, conf: 0.8, imp: 3, key: relationKey("likes"), group: 1,
		re:      re(`我(?:很|非常|特别|也|还|一直|最近)*对(.{1,12}?)(?:很|非常|特别|比较|挺)?(?:感兴趣|有兴趣)`),
		content: func(m *match) string { return "用户对" + m.item + "感兴趣。" }},

	// ---- where, work, when ----------------------------------------------------------
	{name: "live", typ: memory.TypeFact, conf: 0.85, imp: 4, key: homeKey, trim: trimHomeEN, place: true, wholeObject: true,
		re: re(`(?:i|we)(?: (?:currently|now|still|also|all))? (?:live|am living|'m living|are living|reside|am based|'m based)(?: in| at)\s+|i(?:'m| am)(?: (?:currently|now))? (?:living|based) in\s+|we're(?: (?:currently|now))? (?:living|based) in\s+`)},
	{name: "moved", typ: memory.TypeFact, conf: 0.85, imp: 4, key: movedKeyEN, trim: trimMovedEN, place: true, wholeObject: true,
		re: re(`(?:i|we)(?:'ve| have)?(?: (?:just|recently|finally|already|also|since|now|actually))* (?:moved|relocated)(?: back| over| out)? to\s+`)},
	{name: "lived-for", typ: memory.TypeFact, conf: 0.85, imp: 4, key: homeKey, group: 1,
		re:      re(`(?:i|we)(?:'ve| have) (?:lived|been living) in ([a-z][a-z .'-]{1,40}?) (?:for|since)\b`),
		content: func(m *match) string { return "User has lived in " + m.item + "." }},
	{name: "住在", typ: memory.TypeFact, conf: 0.85, imp: 4, key: homeKey,
		re: re(`我(?:们)?(?:现在|目前|一直|也|还|家|已经|全家)?(?:住在|家住|家在|常住|定居在|生活在|居住在)`)},
	{name: "搬到", kind: kindCustom, custom: movedZH,
		re: re(`我(?:们)?(?:去年|前年|今年|上个月|上周|最近|刚刚|刚|已经|前几年|几年前|早就|也|全家|一家|之前|小时候)*(?:搬家到了|搬家到|搬到了|搬去了|搬回了|搬来了|搬到|搬去|搬回|搬来)`)},
	{name: "在…生活", typ: memory.TypeFact, conf: 0.85, imp: 4, key: homeKey, group: 1,
		re:      re(`我(?:现在|目前|一直)?在(.{1,12}?)(?:生活|居住|定居)`),
		content: func(m *match) string { return "用户住在" + m.item + "。" }},
	{name: "from", typ: memory.TypeFact, conf: 0.85, imp: 3, key: fixedKey("hometown"),
		re: re(`i(?:'m| am)(?: originally)? from\s+|i (?:originally )?come from\s+|i grew up in\s+`)},
	{name: "来自", typ: memory.TypeFact, conf: 0.85, imp: 3, key: fixedKey("hometown"),
		re: re(`我(?:来自|的老家(?:是|在)|老家(?:是|在))`)},
	{name: "born-in", typ: memory.TypeFact, conf: 0.85, imp: 3, key: birthKey,
		re: re(`i was born in\s+`)},
	{name: "birthday", typ: memory.TypeFact, conf: 0.9, imp: 3, key: fixedKey("birthday"),
		re: re(`my birthday(?: is|'s)\s+|i was born on\s+`)},
	{name: "生日", typ: memory.TypeFact, conf: 0.9, imp: 3, key: fixedKey("birthday"),
		re: re(`我的生日(?:是|在)`)},
	{name: "work-at", typ: memory.TypeFact, conf: 0.85, imp: 3, key: workPlaceEN, trim: trimTimeEN, place: true,
		re: re(`i(?: (?:currently|now|also))? work(?: (?:night|day|evening|early|late|weekend|double|long) shifts?)? (?:at|for)\s+|i(?: (?:just|recently))? started (?:a new job|my new job|working|a job) (?:at|for)\s+`)},
	{name: "work-as", kind: kindCustom, custom: workAsEN,
		re: re(`i(?: (?:currently|now|also))? work(?: full-time| part-time| full time| part time)? as(?: an?)?\s+|i(?:'ve| have) been working as(?: an?)?\s+`)},
	{name: "teach", kind: kindCustom, custom: teachEN,
		re: re(`i(?: (?:currently|also|now))? teach\s+`)},
	{name: "retired", kind: kindWhole, typ: memory.TypeFact, conf: 0.85, imp: 3, key: fixedKey("work.status"),
		re: re(`i(?:'m| am)(?: (?:now|recently|already|happily|semi))?[ -]retired\b|i retired\b`)},
	{name: "退休", kind: kindWhole, typ: memory.TypeFact, conf: 0.85, imp: 3, key: fixedKey("work.status"),
		re: re(`我(?:已经|早就)退休(?:了)?|我(?:刚|去年|前年)?退休了`)},
	{name: "my-job", typ: memory.TypeFact, conf: 0.85, imp: 3, key: professionEN,
		re: re(`my (?:job|occupation|profession) is(?: an?)?\s+`)},
	{name: "work-in", typ: memory.TypeFact, conf: 0.85, imp: 3, key: func(m *match) (string, bool) {
		if unicode.IsUpper(firstRune(m.item)) {
			return "work.place", true
		}
		return "work.field", true
	}, re: re(`i(?: (?:currently|now|also))? work in\s+`)},
	{name: "i-am-a", kind: kindCustom, custom: iAmRoleEN,
		re: re(`i(?:'m| am)(?: (?:also|currently|now))? an?\s+|i(?:'ve| have) been an?\s+`)},
	{name: "在…做", kind: kindCustom, custom: roleAtZH,
		re: re(`我(?:现在|目前|一直)?在(.{1,12}?)(?:做|当|担任)`)},
	{name: "在…工作", typ: memory.TypeFact, conf: 0.85, imp: 3, key: workPlaceZH, group: 1,
		re:      re(`我(?:现在|目前|一直)?在(.{1,16}?)(?:工作|上班|任职|实习|上夜班|上白班|值夜班|打工|兼职)`),
		content: func(m *match) string { return "用户在" + m.item + "工作。" }},
	{name: "职业", typ: memory.TypeFact, conf: 0.85, imp: 3, key: fixedKey("work.role"),
		re: re(`我的(?:职业|工作)是`)},
	{name: "我是…人", typ: memory.TypeFact, conf: 0.85, imp: 3, key: hometownZH, group: 1,
		re:      re(`我是([^,，的]{1,6}?)人(?:$|,|，)`),
		content: func(m *match) string { return "用户是" + m.item + "人。" }},
	{name: "我是", kind: kindCustom, custom: roleZH,
		re: re(`我(?:现在|目前)?(?:是|当|做)(?:一名|一个|一位|个|名)?`)},

	// ---- family and pets ------------------------------------------------------------
	{name: "married", kind: kindCustom, custom: maritalEN,
		re: re(`i(?:'m| am)(?: (?:happily|also|now|recently|newly|currently))? (?:married|divorced|single|engaged|widowed|separated)\b(?: with ((?:a|an|one|two|three|four|five|\d) (?:kids?|children|child|sons?|daughters?)))?`)},
	{name: "结婚", kind: kindWhole, typ: memory.TypeFact, conf: 0.85, imp: 3, key: fixedKey("family.marital"),
		re: re(`我(?:已经)?(?:结婚|离婚|订婚|离异)了|我(?:是|现在是|目前是|目前|现在|还是|一直)?(?:单身|已婚|离异)`)},
	{name: "have", typ: memory.TypeFact, conf: 0.85, imp: 3, key: petOrFamily, splitAnd: true,
		re: re(`i(?: also)?(?: have| 've got|'ve got| have got| own)\s+`)},
	{name: "we-have", typ: memory.TypeFact, conf: 0.85, imp: 3, key: petOrFamily, splitAnd: true,
		re:      re(`we(?:'ve got| (?:also |still |now )?(?:have got|have|own))\s+`),
		content: func(m *match) string { return "User has " + objectEN(m.item) + "." }},
	{name: "adopted", typ: memory.TypeFact, conf: 0.85, imp: 3, key: petOnly,
		re: re(`(?:i|we)(?: (?:just|recently|finally|also|have|'ve))* (?:adopted|rescued|got|bought|took in)\s+`)},
	{name: "养", kind: kindWhole, typ: memory.TypeFact, conf: 0.85, imp: 3, key: petZH,
		re: re(`我(?:们)?(?:家)?(?:也|还|去年|前年|最近|刚刚|刚|上个月|已经|一直)*(?:有|养了|养着|养|领养了|收养了|买了|捡了)(?:一|两|三|四|几|1|2|3|4)?(?:只|条|个|头|匹|对)?(?:叫.{1,4}的)?(猫咪|狗狗|小猫|小狗|猫|狗|鹦鹉|仓鼠|兔子|金鱼|乌龟|马|` + breedsZH + `)`)},
	{name: "家人", kind: kindWhole, typ: memory.TypeFact, conf: 0.85, imp: 3, key: relativeZH,
		re: re(`我有(?:一个|两个|三个|个|一|两)?(儿子|女儿|孩子|哥哥|姐姐|弟弟|妹妹|老婆|老公|男朋友|女朋友|双胞胎)`)},

	// ---- goals, projects, habits ------------------------------------------------------
	{name: "goal", typ: memory.TypeGoal, conf: 0.85, imp: 4, key: familyKey("goal"), wholeObject: true,
		re: re(`my(?: (?:main|long-term|biggest|ultimate|big|personal|career|life))? (?:goal|dream|ambition|aim)(?: (?:this|for this|for next|next) year| for (?:19|20)\d\d)? (?:is|has always been)(?: to)?\s+`)},
	{name: "become", typ: memory.TypeGoal, conf: 0.8, imp: 4, key: familyKey("goal.become"),
		re: re(`i (?:really )?(?:want|hope|plan|aim|dream|intend) to become(?: an?)?\s+`)},
	{name: "目标", typ: memory.TypeGoal, conf: 0.85, imp: 4, key: familyKey("goal"), wholeObject: true,
		re: re(`我(?:今年|明年|这辈子|人生)?的(?:目标|梦想|理想|愿望|人生目标|长期目标)(?:是|就是)`)},
	{name: "成为", typ: memory.TypeGoal, conf: 0.8, imp: 4, key: familyKey("goal.become"),
		re: re(`我(?:一直)?(?:想|希望|打算|计划|梦想)(?:成为|当)(?:一名|一个|一位)?`)},
	{name: "training-for", kind: kindCustom, custom: trainingGoalEN,
		re: re(`i(?:'m| am)(?: (?:currently|now|also|still))? (?:training|preparing|studying|revising|practicing|practising|getting ready|in training) for\s+`)},
	{name: "准备比赛", kind: kindCustom, custom: trainingGoalZH,
		re: re(`我(?:正在|在|最近在|一直在|目前在|现在在|最近)?(?:准备|备考|备战|训练)`)},
	{name: "saving", kind: kindCustom, custom: savingGoal,
		re: re(`i(?:'m| am)(?: (?:currently|now|also|still))? saving(?: up)?(?: money)? (?:to|for)\s+`)},
	{name: "攒钱", kind: kindCustom, custom: savingGoal,
		re: re(`我(?:在|正在|一直在|最近在)?(?:攒钱|存钱)(?:,)?(?:打算|准备|想|为了|要)?`)},
	{name: "run-business", typ: memory.TypeProject, conf: 0.8, imp: 3, key: businessEN,
		re: re(`i (?:run|own|founded|co-founded|started|opened)(?: (?:a|an|my own|my|our))(?: (?:small|little|tiny|new|own))*\s+`)},
	{name: "开店", kind: kindCustom, custom: businessZH,
		re: re(`我(?:自己)?(?:开了|开着|经营着?|创办了)(?:一家|一个|家|间|一间)(.{0,12}?)(面包店|咖啡馆|工作室|餐厅|花店|书店|酒吧|民宿|诊所|饭店|网店|公司|店)`)},
	{name: "project", typ: memory.TypeProject, conf: 0.8, imp: 3, key: projectEN,
		re: re(`i(?:'m| am)(?: (?:currently|now|also))? (?:working on|building|developing|creating|writing|making|running)\s+|my (?:current |main |side )?project(?: is)?(?: called)?\s+`)},
	{name: "项目", typ: memory.TypeProject, conf: 0.8, imp: 3, key: projectZH, group: 1,
		re:      re(`我(?:正在|在|最近在|目前在|现在在|最近|目前正在|一直在)(?:做|开发|搞|写|研发|负责|创作|维护)(?:一个|一本|一部|一篇|一款|个)?(.{0,20}?)(项目|app|应用|网站|平台|系统|小程序|小说|书|论文|剧本|游戏|开源库|库|工具|框架|插件)`),
		content: func(m *match) string { return sentenceZH(thirdPersonZH(m.head)) }},
	{name: "learning", typ: memory.TypeGoal, conf: 0.8, imp: 3, key: learningEN,
		re: re(`i(?:'m| am)(?: (?:currently|now|also))? (?:learning|studying)\s+|i(?:'ve| have) been (?:learning|studying|practicing|practising)\s+|i(?: (?:just|recently|finally))? (?:started|began) (?:learning|studying|to learn|to study)\s+`)},
	{name: "学习", typ: memory.TypeGoal, conf: 0.8, imp: 3, key: learningZH,
		re: re(`我(?:正在|最近在|目前在|最近|一直在|在|现在在|还在|刚开始|开始|最近开始|刚)(?:学习|自学|学)`)},
	{name: "读", typ: memory.TypeGoal, conf: 0.8, imp: 3, key: learningZH, group: 2,
		re:      re(`我(?:现在|目前)?在(.{2,12}?)(?:读|念|攻读)(.{1,8})`),
		content: func(m *match) string { return "用户在" + m.group(1) + "读" + m.item + "。" }},
	{name: "speak", typ: memory.TypeFact, conf: 0.85, imp: 3, key: familyKey("language.speaks"), splitAnd: true,
		re: re(`i(?: also)? speak\s+|i(?:'m| am) fluent in\s+|my (?:native language|mother tongue|first language) is\s+`)},
	{name: "native-speaker", typ: memory.TypeFact, conf: 0.85, imp: 3, key: familyKey("language.speaks"), group: 1,
		re:      re(`i(?:'m| am) a native ([a-z]+) speaker`),
		content: func(m *match) string { return "User is a native " + m.item + " speaker." }},
	{name: "母语", typ: memory.TypeFact, conf: 0.85, imp: 3, key: languageZH,
		re: re(`我的(?:母语|第一语言)是`)},
	{name: "会说", typ: memory.TypeFact, conf: 0.85, imp: 3, key: languageZH, splitAnd: true,
		re: re(`我(?:也|还)?(?:会说|会讲|能说|能讲|说|讲)(?:一口流利的|一口|一点|流利的)?`)},
	{name: "流利", typ: memory.TypeFact, conf: 0.85, imp: 3, key: languageZH, group: 1,
		re:      re(`我的(.{1,4}?(?:语|文))(?:说得|讲得)?(?:很|非常|比较|挺|相当)?(?:流利|地道)`),
		content: func(m *match) string { return sentenceZH(thirdPersonZH(m.head)) }},
	{name: "habit", kind: kindWhole, typ: memory.TypePreference, conf: 0.8, imp: 2, key: habitKey,
		re: re(`i (?:usually|always|often|normally|regularly|never|rarely|generally|typically)(?: also)? (?:drink|eat|go|run|wake up|get up|sleep|read|cook|play|listen to|watch|walk|swim|work out|exercise|take|use|practice|practise|study|visit|ride|drive|bike|cycle|meditate|jog|do yoga|work)\b[^,;]*`)},
	{name: "commute", kind: kindWhole, typ: memory.TypePreference, conf: 0.8, imp: 2, key: habitKey,
		re: re(`i (?:usually |always |mostly )?(?:bike|cycle|walk|drive|ride my bike|take the bus|take the train|take the subway|take the metro|commute by \w+)(?: everywhere| to work| to school| to the office| to campus)\b`)},
	{name: "habit-every", kind: kindWhole, typ: memory.TypePreference, conf: 0.8, imp: 2, key: habitKey,
		re: re(`i (?:also |usually |always |often |normally |still )?(?:go|drink|eat|run|swim|jog|walk|cycle|bike|ride|meditate|read|cook|play|practice|practise|do|work out|train|visit|call|take|have|study|write|paint|volunteer|attend|wake up|get up|sleep)\b[^,;]*?\b(?:every (?:day|morning|evening|night|week|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|each (?:day|morning|evening|week)|daily|on weekends|at weekends|on (?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)|(?:once|twice|three times) a (?:day|week|month))\b[^,;]*`)},
	{name: "习惯", kind: kindWhole, typ: memory.TypePreference, conf: 0.8, imp: 2, key: habitKey,
		re: re(`我(?:(?:每天|平时|通常|经常|一般|习惯|总是|每周[一二三四五六日天]?|每个?周末|每晚|每天早上|每天晚上|每个月|每月|早上|晚上|下午|中午|上午|(?:周|星期)[一二三四五六日天])(?:都)?)+(?:会)?(?:在(?:家|公司|健身房|图书馆|咖啡馆|附近|楼下))?(?:[零一二三四五六七八九十两0-9]{1,3}点(?:半|钟|多)?(?:左右)?)?(?:就)?(?:去)?(?:喝|吃|跑步|看|听|读|写|画|练|学|做|玩|骑|游泳|早起|睡|锻炼|运动|冥想|散步|花|起床|健身|上床|走|坐|用|办公|上班|工作)[^,，]*`)},
}

func prefersKey(m *match) (string, bool) {
	obj := m.item
	low := strings.ToLower(obj)
	for _, sep := range []string{" over ", " to ", " rather than ", " instead of ", "而不是", "胜过", "多于"} {
		if i := strings.Index(low, sep); i > 0 {
			obj = obj[:i]
			break
		}
	}
	if l := replyAspect(obj); l != "" {
		return l, true
	}
	s := slugOf(obj)
	d := domainOf(s)
	if d == "interest" && hasCJK(obj) {
		d = zhDomain(obj)
	}
	return d + ".prefers." + s, true
}

func habitKey(m *match) (string, bool) {
	if !hasCJK(m.item) {
		ws := strings.Fields(strings.ToLower(m.item))
		for len(ws) > 0 && (ws[0] == "i" || enAdverbs[ws[0]]) {
			ws = ws[1:]
		}
		// "go swimming every Saturday morning" → habit.go_swimming: the key names the
		// habit, not its schedule.
		for i, w := range ws {
			if i > 0 && (w == "every" || w == "each" || w == "daily" || w == "on" && i+1 < len(ws) && strings.HasSuffix(ws[i+1], "s") ||
				(w == "once" || w == "twice") && i+1 < len(ws) && ws[i+1] == "a") {
				ws = ws[:i]
				break
			}
		}
		return "habit." + candidate.Slug(strings.Join(ws, " ")), true
	}
	for _, w := range []string{"不好", "不到", "不了", "不会", "不行", "不完", "不对", "错", "失败", "忘", "迟到"} {
		if strings.Contains(m.item, w) {
			return "", false // "我总是做不好": a complaint, not a habit
		}
	}
	return "habit." + slugOf(stripLeadingZH(m.item, []string{"我每天", "我平时", "我通常", "我经常", "我一般", "我习惯", "我总是", "我每周", "我每晚", "我早上", "我晚上", "都", "会", "去"})), true
}

func stripLeadingZH(s string, prefixes []string) string {
	for changed := true; changed; {
		changed = false
		for _, p := range prefixes {
			if strings.HasPrefix(s, p) {
				s, changed = s[len(p):], true
			}
		}
	}
	return s
}

// replyAspect classifies a standing rule about the assistant's replies: the reply
// language and length are single slots (a new rule replaces the old), style rules
// are one memory each.
func replyAspect(body string) string {
	low := strings.ToLower(body)
	replyVerb := false
	for _, v := range []string{"answer", "reply", "replies", "respond", "response", "speak", "write", "talk", "use", "in ",
		"回复", "回答", "说", "交流", "用", "讲", "写", "沟通", "聊"} {
		if strings.Contains(low, v) {
			replyVerb = true
			break
		}
	}
	if !replyVerb {
		return ""
	}
	for name := range languages {
		if (hasCJK(name) && strings.Contains(low, name)) || containsWordASCII(low, name) {
			return "reply.language"
		}
	}
	for _, w := range []string{"short", "shorter", "brief", "concise", "long", "length", "words", "characters",
		"sentences", "字", "简短", "简洁", "篇幅", "长度", "句话"} {
		if containsWordASCII(low, w) || hasCJK(w) && strings.Contains(low, w) {
			return "reply.length"
		}
	}
	for _, w := range []string{"emoji", "emojis", "markdown", "bullet", "bullets", "tone", "formal", "casual",
		"polite", "jokes", "humor", "humour", "表情", "格式", "语气", "正式", "幽默", "列表", "礼貌", "风格"} {
		if containsWordASCII(low, w) || hasCJK(w) && strings.Contains(low, w) {
			return "reply.style." + slugOf(w)
		}
	}
	return ""
}

// ruleKey names a standing rule: a reply slot when it is about replies, else rule.<slug>.
func ruleKey(body string) string {
	if k := replyAspect(body); k != "" {
		return k
	}
	return "rule." + slugOf(body)
}

// hometownZH accepts "我是武汉人" but not "我是个好人".
func hometownZH(m *match) (string, bool) {
	for _, p := range []string{"一", "个", "好", "坏", "很", "有", "大", "老", "普通", "成年", "病", "女", "男", "年轻", "外", "穷", "富", "懒", "工作", "家里", "普通", "正常", "内向", "外向"} {
		if strings.HasPrefix(m.item, p) {
			return "", false
		}
	}
	return "hometown", true
}

func learningEN(m *match) (string, bool) {
	first := strings.ToLower(strings.Fields(m.item + " x")[0])
	switch first {
	case "for", "about", "hard", "with", "at", "in", "how", "x":
		return "", false
	case "to": // "learning to play the cello"; not "learning to be patient"
		switch strings.ToLower(strings.Fields(m.item + " x x")[1]) {
		case "be", "do", "live", "accept", "let", "deal", "cope", "trust", "love", "say", "x":
			return "", false
		}
	}
	return "learning." + slugOf(m.item), true
}

// workPlaceZH accepts "我在腾讯工作" but not "我在考虑找新工作" or "我在找了几份工作".
func workPlaceZH(m *match) (string, bool) {
	place := m.item
	if strings.HasPrefix(place, "一") {
		return "", false // "一家公司": says nothing about where
	}
	for _, v := range []string{"考虑", "思考", "找", "换", "想", "做", "要", "是否", "寻找", "申请", "面试", "了", "过", "准备", "犹豫", "纠结"} {
		if strings.Contains(place, v) {
			return "", false
		}
	}
	return "work.place", true
}

func learningZH(m *match) (string, bool) {
	if strings.HasPrefix(m.item, "会") || strings.HasPrefix(m.item, "了") || strings.HasPrefix(m.item, "到") {
		return "", false // 学会了: something learnt once, not an ongoing pursuit
	}
	// "我在学校…", "我在学习上…": a place or an aside, not a subject; "在图书馆读书":
	// reading, not studying.
	for _, p := range []string{"校", "生", "院", "期", "上", "中", "方面", "的", "书", "小说", "报", "杂志", "文章", "完", "着"} {
		if strings.HasPrefix(m.item, p) {
			return "", false
		}
	}
	if strings.HasSuffix(m.item, "时") || strings.HasSuffix(m.item, "时候") {
		return "", false // "我在学习函数的概念时，…": when, not what
	}
	return "learning." + slugOf(m.item), true
}

// hiIAmEN: "Hi, I'm Gary", "Hi! I'm Priya, a UX designer from Pune" (a name, and a
// role given as an apposition).
func hiIAmEN(m *match, rest string, loc []int) ([]draft, int, bool) {
	after := rest[loc[1]:]
	name, n := nameWordsEN(after)
	if name == "" {
		return nil, 0, false
	}
	if _, ok := greetedNameEN(&match{item: name}); !ok {
		return nil, 0, false
	}
	out := []draft{{typ: memory.TypeFact, key: "name", content: "User's name is " + name + ".", importance: 4, confidence: 0.85}}
	consumed := loc[1] + n
	tail := after[n:]
	low := strings.ToLower(tail)
	for _, art := range []string{", a ", ", an "} {
		if !strings.HasPrefix(low, art) {
			continue
		}
		obj, on := cutObject(tail[len(art):], false, false)
		role, place, origin := splitRoleEN(obj)
		if ok, student := isProfessionEN(role); ok {
			out = append(out, roleDrafts(sentenceEN("User is "+strings.TrimSpace(art[2:])+" "+role), role, place, origin, student)...)
			consumed += len(art) + on
		}
	}
	return out, consumed, true
}

// languageZH accepts a language ("粤语", "上海话") for language.speaks.<slug>; "我说了一句话",
// "我讲个笑话" name none.
func languageZH(m *match) (string, bool) {
	item := m.item
	if _, ok := languages[item]; !ok {
		n := utf8.RuneCountInString(item)
		if n < 2 || n > 5 || !(strings.HasSuffix(item, "语") || strings.HasSuffix(item, "话") || strings.HasSuffix(item, "文")) {
			return "", false
		}
		for _, p := range []string{"个", "一", "几", "这", "那", "些", "句", "了", "两", "三", "些", "你", "他", "她", "我", "什么"} {
			if strings.HasPrefix(item, p) {
				return "", false
			}
		}
		for _, w := range notLanguagesZH {
			if strings.HasSuffix(item, w) {
				return "", false
			}
		}
	}
	return "language.speaks." + slugOf(item), true
}

// notLanguagesZH end in 语/话/文 without being a language one speaks.
var notLanguagesZH = []string{"成语", "谚语", "笑话", "话语", "术语", "脏话", "真话", "假话", "实话", "废话", "坏话", "好话", "大话",
	"情话", "鬼话", "梦话", "气话", "闲话", "悄悄话", "心里话", "电话", "童话", "神话", "对话", "说话", "讲话", "课文", "作文",
	"论文", "原文", "全文", "正文", "短文", "散文", "口语", "外语", "母语", "语文", "暗语", "密语", "咒语", "标语", "俗语", "评语"}

// greetedNameEN accepts one capitalised word that is not a state ("Hi, I'm Gary", not
// "Hi, I'm Fine" or "Hi, I'm Back").
func greetedNameEN(m *match) (string, bool) {
	ws := strings.Fields(m.item)
	if len(ws) != 1 && len(ws) != 2 {
		return "", false
	}
	for _, w := range ws {
		if !unicode.IsUpper(firstRune(w)) {
			return "", false
		}
	}
	switch strings.ToLower(ws[0]) {
	case "fine", "good", "okay", "ok", "back", "here", "sorry", "glad", "happy", "excited", "tired", "new", "ready", "so", "very", "really", "just", "not", "a", "an", "the", "chinese", "american", "english", "british", "french", "german", "japanese", "korean", "indian":
		return "", false
	}
	return "name", true
}

// greetedNameZH accepts "你好，我是姚国栋" (two to four Han characters that are not an
// occupation or a place of origin).
func greetedNameZH(m *match) (string, bool) {
	n := utf8.RuneCountInString(m.item)
	if n < 2 || n > 4 {
		return "", false
	}
	for _, r := range m.item {
		if !unicode.Is(unicode.Han, r) {
			return "", false
		}
	}
	if _, ok := professionZH(m); ok || strings.HasSuffix(m.item, "人") {
		return "", false
	}
	for _, p := range []string{"一", "个", "你", "他", "她", "这", "那", "来", "在", "说", "想", "不", "很", "第"} {
		if strings.HasPrefix(m.item, p) {
			return "", false
		}
	}
	return "name", true
}

package rules

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"engram/domain/candidate"
)

// Key rules: how a pattern's match names its memory, and whether the object is one
// the pattern keeps at all ("I'm a bit tired" is no profession). Patterns name them
// in patterns/*.yaml as rule() (keyRules in patterns.go).

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
		return isRelativeEN(strings.Fields(rest))
	}
	r := strings.TrimPrefix(strings.TrimPrefix(low, "我的"), "我")
	return r != low && isRelativeZH(r)
}

// groupRelativesEN name relatives as a group; relativeAdjectivesEN may stand before
// the relation ("my little sister"), as may an adverb ("my really old dad").
var (
	groupRelativesEN     = toSet(`family parents children kids`)
	relativeAdjectivesEN = toSet(`little big younger older`)
)

// isRelativeEN looks at the words after "my": a relation, after nothing but
// adjectives and adverbs.
func isRelativeEN(ws []string) bool {
	for _, w := range ws {
		w = strings.TrimSuffix(strings.TrimRight(w, ".,!?;:"), "'s")
		if relationsEN[w] != "" || relationsEN[strings.TrimSuffix(w, "s")] != "" || groupRelativesEN[w] {
			return true
		}
		if !enAdverbs[w] && !relativeAdjectivesEN[w] {
			return false
		}
	}
	return false
}

// isRelativeZH: what follows "我(的)" is a relation, with at most one character more
// ("女儿们"), or the family as a whole.
func isRelativeZH(r string) bool {
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
func nameValue(m *match) (string, bool) {
	if hasCJK(m.item) {
		n := len([]rune(m.item))
		if n > 6 || strings.ContainsAny(m.item, "了过你他她去来做帮回吃起") {
			return "", false
		}
		return "name", true
	}
	ws := strings.Fields(m.item)
	if len(ws) == 0 || len(ws) > 3 || notNameOpenersEN[strings.ToLower(ws[0])] {
		return "", false
	}
	return "name", true
}

// notNamesEN open what follows "my name is"/"I'm called" when it is no name
// ("…back later", "…when you need me").
var notNameOpenersEN = toSet(`back later when if tomorrow tonight anytime now and to at on`)

// workInEN: "I work in Berlin" names a place, "I work in finance" a field.
func workInEN(m *match) (string, bool) {
	if unicode.IsUpper(firstRune(m.item)) {
		return "work.place", true
	}
	return "work.field", true
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
	if hasCJK(m.item) {
		if containsAny(m.item, complaintsZH...) {
			return "", false // "我总是做不好": a complaint, not a habit
		}
		return "habit." + slugOf(stripLeadingZH(m.item, habitOpenersZH)), true
	}
	return "habit." + candidate.Slug(strings.Join(habitWordsEN(m.item), " ")), true
}

var (
	complaintsZH   = []string{"不好", "不到", "不了", "不会", "不行", "不完", "不对", "错", "失败", "忘", "迟到"}
	habitOpenersZH = []string{"我每天", "我平时", "我通常", "我经常", "我一般", "我习惯", "我总是", "我每周", "我每晚", "我早上", "我晚上", "都", "会", "去"}
)

// habitWordsEN are the words of an English habit without its subject, adverbs and
// schedule: "go swimming every Saturday morning" → habit.go_swimming, so the key
// names the habit, not when it happens.
func habitWordsEN(item string) []string {
	ws := strings.Fields(strings.ToLower(item))
	for len(ws) > 0 && (ws[0] == "i" || enAdverbs[ws[0]]) {
		ws = ws[1:]
	}
	for i := 1; i < len(ws); i++ {
		if opensScheduleEN(ws, i) {
			return ws[:i]
		}
	}
	return ws
}

// opensScheduleEN: "every …", "each …", "daily", "on Sundays", "once a week".
func opensScheduleEN(ws []string, i int) bool {
	next := ""
	if i+1 < len(ws) {
		next = ws[i+1]
	}
	switch ws[i] {
	case "every", "each", "daily":
		return true
	case "on":
		return strings.HasSuffix(next, "s")
	case "once", "twice":
		return next == "a"
	}
	return false
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
	if !containsAny(low, replyVerbs...) {
		return ""
	}
	for _, a := range replyAspects {
		for _, w := range a.words {
			if mentions(low, w) {
				return a.key + a.suffix(w)
			}
		}
	}
	return ""
}

// replyVerbs: a rule is about replies only when it says how to answer.
var replyVerbs = []string{"answer", "reply", "replies", "respond", "response", "speak", "write", "talk", "use", "in ",
	"回复", "回答", "说", "交流", "用", "讲", "写", "沟通", "聊"}

// replyAspectRule is one slot of the reply, named by the first of its words a rule
// mentions; a style is one memory per word (reply.style.emoji).
type replyAspectRule struct {
	key     string
	words   []string
	perWord bool
}

func (a replyAspectRule) suffix(w string) string {
	if a.perWord {
		return "." + slugOf(w)
	}
	return ""
}

var replyAspects = []replyAspectRule{
	{key: "reply.language", words: languageNames()},
	{key: "reply.length", words: []string{"short", "shorter", "brief", "concise", "long", "length", "words", "characters",
		"sentences", "字", "简短", "简洁", "篇幅", "长度", "句话"}},
	{key: "reply.style", perWord: true, words: []string{"emoji", "emojis", "markdown", "bullet", "bullets", "tone", "formal", "casual",
		"polite", "jokes", "humor", "humour", "表情", "格式", "语气", "正式", "幽默", "列表", "礼貌", "风格"}},
}

// languageNames are the spellings of the reply languages (any order: every one
// names the same slot).
func languageNames() []string {
	out := make([]string, 0, len(languages))
	for name := range languages {
		out = append(out, name)
	}
	return out
}

// mentions reports whether low names w: a Chinese word anywhere, a Latin one as a
// whole word (or its plural).
func mentions(low, w string) bool {
	return hasCJK(w) && strings.Contains(low, w) || containsWordASCII(low, w)
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

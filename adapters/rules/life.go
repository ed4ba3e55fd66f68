package rules

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"engram/domain/candidate"
	"engram/domain/memory"
)

// Helpers for the patterns about the user's life: where they live, what they do,
// their family and pets, health, goals. Each keeps the fact and leaves out what
// only dates it ("I moved to Berlin last year" → home.city Berlin): the date does
// not make a stable fact short-lived.

// whenEN/durationEN are time qualifiers at the end of an object: "Berlin last year",
// "Seoul for about six years now", "pharmacist since 2019".
var (
	// Only qualifiers that date a fact: "this week" or "for now" make it short-lived,
	// and stay in the content so the boundaries drop it.
	whenEN     = regexp.MustCompile(`\s+(?:last (?:year|month|summer|winter|spring|autumn|fall)|in (?:(?:19|20)\d\d|january|february|march|april|may|june|july|august|september|october|november|december|the (?:spring|summer|autumn|fall|winter))|(?:a|one|two|three|four|five|six|\d+|a few|several|many) (?:years?|months?) ago|a (?:long )?while ago|recently|already|again|back then|by the end of (?:the|this|next) year|one day|someday)\b.*$`)
	durationEN = regexp.MustCompile(`\s+(?:for (?:about |over |almost |nearly |more than |the (?:last|past) )?(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|several|many|a few|a couple of)\s*(?:years?|months?|decades?|weeks?)|since (?:(?:19|20)\d\d|i was \w+|childhood|college|university|school|high school))\b.*$`)
)

// trimTimeEN drops trailing time qualifiers.
func trimTimeEN(obj string) string {
	for {
		low := strings.ToLower(obj)
		loc := whenEN.FindStringIndex(low)
		if loc == nil {
			loc = durationEN.FindStringIndex(low)
		}
		if loc == nil || loc[0] == 0 {
			return trimObject(obj, false)
		}
		obj = obj[:loc[0]]
	}
}

// temporaryStayEN: "in Paris for now", "…for two months", "…for the summer": a stay,
// not a home.
var temporaryStayEN = regexp.MustCompile(`\bfor (?:now|the time being|the moment|a (?:few|couple of) (?:days|weeks|months)|a (?:week|month|while|bit)|(?:\d+|one|two|three|four|five|six|several) (?:days|weeks|months)|the (?:summer|winter|semester|holidays|weekend))\b|\btemporarily\b`)

// trimHomeEN keeps the place of "Lisbon, near the river" or "Toronto with my family";
// a temporary stay ("Paris for now") is no home at all.
func trimHomeEN(obj string) string {
	if temporaryStayEN.MatchString(strings.ToLower(obj)) {
		return ""
	}
	if i := strings.Index(obj, ", "); i > 0 {
		obj = obj[:i]
	}
	low := strings.ToLower(obj)
	for _, stop := range []string{" with ", " for ", " to be ", " near ", " because ", " after ", " when "} {
		if i := strings.Index(low, stop); i > 0 {
			obj, low = obj[:i], low[:i]
		}
	}
	return trimTimeEN(obj)
}

// movedWhenEN are windows a completed move may carry: "I moved to Berlin yesterday"
// still says where the user lives.
var movedWhenEN = regexp.MustCompile(`\s+(?:yesterday|today|this (?:week|month|morning)|last (?:week|night|weekend)|just now)\b.*$`)

// trimMovedEN is trimHomeEN for a move that happened.
func trimMovedEN(obj string) string {
	if loc := movedWhenEN.FindStringIndex(strings.ToLower(obj)); loc != nil && loc[0] > 0 {
		obj = obj[:loc[0]]
	}
	return trimHomeEN(obj)
}

// validPlace accepts a described place ("the city library", "a small town in Ohio")
// that validObject would take for a reference back ("the plot").
func validPlace(obj string) bool {
	ws := strings.Fields(obj)
	if len(ws) == 0 || len(ws) > 8 || strings.ContainsAny(obj, "?？") {
		return false
	}
	return !deicticEN[strings.ToLower(ws[0])]
}

// pastMoveZH are the markers that make "搬到…" a move that happened, not a plan.
var pastMoveZH = []string{"了", "去年", "前年", "已经", "刚", "几年前", "前几年", "早就", "上个月", "年前", "小时候", "之前"}

// movedZH: "我去年搬到了杭州", "我们前年搬到了青岛"; "我下个月搬到柏林" is a plan (and a window).
func movedZH(m *match, rest string, loc []int) ([]draft, int, bool) {
	obj, n := cutObject(rest[loc[1]:], true, false)
	obj = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(obj, "住"), "生活"), "定居")
	obj = trimObject(obj, true)
	if obj == "" || !validObject(obj, true) || utf8.RuneCountInString(obj) > 10 {
		return nil, 0, false
	}
	for _, w := range []string{"办公", "公司", "工位", "座位", "楼上", "楼下", "隔壁", "会议", "教室", "对面", "旁边", "后面", "前面"} {
		if strings.Contains(obj, w) {
			return nil, 0, false // "我搬到了新的办公室": a desk, not a home
		}
	}
	past := strings.HasPrefix(strings.TrimSpace(rest[loc[1]+len(obj):]), "了")
	for _, p := range pastMoveZH {
		past = past || strings.Contains(m.head, p)
	}
	if !past {
		return nil, 0, false
	}
	who := "用户"
	head := m.head
	if strings.HasPrefix(head, "我们") {
		who, head = "用户一家", strings.TrimPrefix(head, "我们")
	} else {
		head = strings.TrimPrefix(head, "我")
	}
	hm := &match{item: obj, zh: true}
	key, _ := homeKey(hm)
	d := draft{typ: memory.TypeFact, key: key, content: sentenceZH(who + head + obj), importance: 4, confidence: 0.85}
	return []draft{d}, loc[1] + n, true
}

// studentRoles are roles whose "at X" is a school, not a workplace.
var studentRoles = toSet(`student students undergraduate undergrad postgraduate postgrad grad phd pupil fresher freshman sophomore`)

// splitRoleEN cuts "software engineer at Google from Pune" into the role, where
// they work or study, and where they come from. A duration ("for 12 years") stays
// with the role.
func splitRoleEN(item string) (role, place, origin string) {
	low := strings.ToLower(item)
	end := len(item)
	if i := strings.Index(low, " from "); i > 0 {
		origin, end = item[i+len(" from "):], i
	}
	for _, sep := range []string{" at ", " for "} {
		i := strings.Index(low[:end], sep)
		if i <= 0 {
			continue
		}
		if sep == " for " && durationEN.MatchString(low[i:end]) && durationEN.FindStringIndex(low[i:end])[0] == 0 {
			continue
		}
		place, end = item[i+len(sep):end], i
		break
	}
	return trimObject(item[:end], false), trimTimeEN(place), trimTimeEN(origin)
}

// isProfessionEN reports whether a role names an occupation: its head noun (before
// "in <field>" and a duration) is a known profession.
func isProfessionEN(role string) (ok, student bool) {
	low := strings.ToLower(role)
	if i := strings.Index(low, " in "); i > 0 {
		low = low[:i]
	}
	low = strings.ToLower(trimTimeEN(low))
	ws := strings.Fields(low)
	if len(ws) == 0 || len(ws) > 4 {
		return false, false
	}
	last := strings.Trim(ws[len(ws)-1], ".,")
	for _, w := range ws {
		student = student || studentRoles[strings.Trim(w, ".,")]
	}
	return professions[last], student
}

// roleDrafts turns a role and where into drafts: work.role, and work.place (or
// education.school for a student) and hometown when given.
func roleDrafts(roleContent, role, place, origin string, student bool) []draft {
	out := []draft{{typ: memory.TypeFact, key: "work.role", content: roleContent, importance: 3, confidence: 0.85}}
	if place != "" && validPlace(place) && !strings.EqualFold(place, "home") {
		if student {
			out = append(out, draft{typ: memory.TypeFact, key: "education.school", content: sentenceEN("User studies at " + place), importance: 3, confidence: 0.85})
		} else {
			out = append(out, draft{typ: memory.TypeFact, key: "work.place", content: sentenceEN("User works at " + place), importance: 3, confidence: 0.85})
		}
	}
	if origin != "" && unicode.IsUpper(firstRune(origin)) {
		out = append(out, draft{typ: memory.TypeFact, key: "hometown", content: sentenceEN("User is from " + origin), importance: 3, confidence: 0.85})
	}
	return out
}

// iAmRoleEN: "I'm a software engineer at Google" (a role only when it is a
// profession: "I'm a bit tired" is not).
func iAmRoleEN(m *match, rest string, loc []int) ([]draft, int, bool) {
	obj, n := cutObject(rest[loc[1]:], false, false)
	role, place, origin := splitRoleEN(obj)
	ok, student := isProfessionEN(role)
	if !ok {
		return nil, 0, false
	}
	content := sentenceEN(thirdPersonEN(m.head) + " " + objectEN(role))
	return roleDrafts(content, role, place, origin, student), loc[1] + n, true
}

// workAsEN: "I work as a nurse at the Charité", "I've been working as a pharmacist
// for 12 years": a job whatever the noun.
func workAsEN(m *match, rest string, loc []int) ([]draft, int, bool) {
	obj, n := cutObject(rest[loc[1]:], false, false)
	role, place, origin := splitRoleEN(obj)
	if role == "" || len(strings.Fields(role)) > 8 {
		return nil, 0, false
	}
	_, student := isProfessionEN(role)
	content := sentenceEN(thirdPersonEN(m.head) + " " + objectEN(role))
	return roleDrafts(content, role, place, origin, student), loc[1] + n, true
}

// teachEN: "I teach math at a high school": a job when it names where or whom.
func teachEN(m *match, rest string, loc []int) ([]draft, int, bool) {
	obj, n := cutObject(rest[loc[1]:], false, false)
	low := strings.ToLower(obj)
	ok := false
	for _, w := range []string{" at ", "school", "university", "college", "students", "classes", "kindergarten", "courses", "pupils"} {
		ok = ok || strings.Contains(" "+low, w)
	}
	if !ok || deicticEN[strings.Fields(low + " x")[0]] {
		return nil, 0, false
	}
	d := draft{typ: memory.TypeFact, key: "work.role", content: sentenceEN(thirdPersonEN(m.head) + " " + objectEN(obj)), importance: 3, confidence: 0.85}
	return []draft{d}, loc[1] + n, true
}

// zhRoleModifiers open "…的设计师" without naming an employer ("自由职业的平面设计师").
var zhRoleModifiers = []string{"自由职业", "自由", "兼职", "全职", "资深", "高级", "初级", "中级", "普通", "专业", "优秀", "独立",
	"退休", "前", "实习", "年轻", "新", "老", "一名", "一个", "一位", "个", "名", "很", "非常"}

// zhStudentRoles study at a school rather than work at a place.
var zhStudentRoles = []string{"学生", "研究生", "博士生", "本科生", "硕士生", "大学生", "中学生", "高中生", "留学生", "博士", "硕士"}

// roleZH: "我是谷歌的软件工程师" → role and work.place; "我是清华大学的研究生" → role and
// education.school; "我当药剂师已经十二年了" → role.
func roleZH(m *match, rest string, loc []int) ([]draft, int, bool) {
	obj, n := cutObject(rest[loc[1]:], true, false)
	for _, stop := range []string{"已经", "已", "有", "快", "将近", "差不多", "十", "好几", "几"} {
		if i := strings.Index(obj, stop); i > 0 {
			if _, ok := professionZH(&match{item: obj[:i]}); ok {
				obj = obj[:i]
			}
		}
	}
	obj = trimObject(obj, true)
	if _, ok := professionZH(&match{item: obj}); !ok || utf8.RuneCountInString(obj) > 16 {
		return nil, 0, false
	}
	out := []draft{{typ: memory.TypeFact, key: "work.role", content: sentenceZH(thirdPersonZH(m.head + obj)), importance: 3, confidence: 0.85}}
	if i := strings.LastIndex(obj, "的"); i > 0 {
		org, role := obj[:i], obj[i+len("的"):]
		modifier := utf8.RuneCountInString(org) < 2
		for _, p := range zhRoleModifiers {
			modifier = modifier || strings.HasPrefix(org, p) || strings.HasSuffix(org, p)
		}
		if !modifier && utf8.RuneCountInString(org) <= 10 {
			student := false
			for _, s := range zhStudentRoles {
				student = student || strings.HasSuffix(role, s)
			}
			if student {
				out = append(out, draft{typ: memory.TypeFact, key: "education.school", content: "用户在" + org + "读书。", importance: 3, confidence: 0.85})
			} else {
				out = append(out, draft{typ: memory.TypeFact, key: "work.place", content: "用户在" + org + "工作。", importance: 3, confidence: 0.85})
			}
		}
	}
	return out, loc[1] + n, true
}

// roleAtZH: "我在一家医院当护士", "我在成都做UI设计师", "我在一家外企做财务".
func roleAtZH(m *match, rest string, loc []int) ([]draft, int, bool) {
	for _, v := range []string{"考虑", "想", "打算", "准备", "学", "努力", "尝试", "试着", "犹豫", "纠结"} {
		if strings.Contains(m.group(1), v) {
			return nil, 0, false // "我在考虑做设计师": not (yet) the job
		}
	}
	role, n := cutObject(rest[loc[1]:], true, false)
	if _, ok := professionZH(&match{item: role}); !ok || utf8.RuneCountInString(role) > 10 {
		return nil, 0, false
	}
	d := draft{typ: memory.TypeFact, key: "work.role", content: sentenceZH(thirdPersonZH(m.head + role)), importance: 3, confidence: 0.85}
	return []draft{d}, loc[1] + n, true
}

// Relatives by the word the user calls them; unique ones (a wife, a mother) are one
// slot, others (a daughter, a brother) one memory each, named by the relative.
var (
	relationsEN = map[string]string{"wife": "wife", "husband": "husband", "partner": "partner", "spouse": "spouse",
		"boyfriend": "boyfriend", "girlfriend": "girlfriend", "fiance": "fiance", "fiancé": "fiance", "fiancee": "fiancee",
		"fiancée": "fiancee", "mom": "mother", "mum": "mother", "mother": "mother", "dad": "father", "father": "father",
		"son": "son", "daughter": "daughter", "brother": "brother", "sister": "sister", "kid": "kid", "child": "child",
		"baby": "baby", "twin": "twin", "stepson": "stepson", "stepdaughter": "stepdaughter", "grandson": "grandson",
		"granddaughter": "granddaughter"}
	relationsZH = map[string]string{"老婆": "wife", "妻子": "wife", "太太": "wife", "媳妇": "wife", "老公": "husband",
		"丈夫": "husband", "先生": "husband", "爱人": "spouse", "男朋友": "boyfriend", "男友": "boyfriend", "女朋友": "girlfriend",
		"女友": "girlfriend", "未婚夫": "fiance", "未婚妻": "fiancee", "妈妈": "mother", "母亲": "mother", "妈": "mother",
		"爸爸": "father", "父亲": "father", "爸": "father", "儿子": "son", "女儿": "daughter", "孩子": "child", "宝宝": "baby",
		"哥哥": "brother", "弟弟": "brother", "姐姐": "sister", "妹妹": "sister", "孙子": "grandson", "孙女": "granddaughter",
		"对象": "partner", "双胞胎": "twin"}
	uniqueRelations = toSet(`wife husband partner spouse boyfriend girlfriend fiance fiancee mother father`)
)

// relationAlternation is the regexp alternation of the relation words, longest first.
func relationAlternation(m map[string]string) string {
	var ws []string
	for w := range m {
		ws = append(ws, regexp.QuoteMeta(w))
	}
	for i := 1; i < len(ws); i++ {
		for j := i; j > 0 && (len(ws[j]) > len(ws[j-1]) || len(ws[j]) == len(ws[j-1]) && ws[j] < ws[j-1]); j-- {
			ws[j], ws[j-1] = ws[j-1], ws[j]
		}
	}
	return strings.Join(ws, "|")
}

var (
	relEN = relationAlternation(relationsEN)
	relZH = relationAlternation(relationsZH)
)

// relativeDraft is the memory of a named (or unnamed) relative of the user.
func relativeDraft(relation, name string, zh bool, rawRelation string) draft {
	key := "family." + relation
	var content string
	switch {
	case zh && name != "":
		content = "用户的" + rawRelation + "叫" + name + "。"
	case zh:
		content = "用户有" + rawRelation + "。"
	case name != "" && uniqueRelations[relation]:
		content = "User's " + rawRelation + " is " + name + "."
	case name != "":
		content = "User has a " + rawRelation + " named " + name + "."
	default:
		content = "User has a " + rawRelation + "."
	}
	if name != "" && !uniqueRelations[relation] {
		key += "." + slugOf(name)
	}
	return draft{typ: memory.TypeFact, key: key, content: content, importance: 3, confidence: 0.85}
}

// nameWordsEN takes a capitalised name of one or two words from the start of s.
func nameWordsEN(s string) (string, int) {
	var words []string
	n := 0
	for _, w := range strings.Fields(s) {
		clean := strings.TrimRight(w, ".,!?;:'\"")
		if clean == "" || !unicode.IsUpper(firstRune(clean)) || notNamesEN[strings.ToLower(clean)] || len(words) == 2 {
			break
		}
		words = append(words, clean)
		if clean != w {
			break
		}
	}
	if len(words) == 0 {
		return "", 0
	}
	name := strings.Join(words, " ")
	n = strings.Index(s, name) + len(name)
	return name, n
}

var notNamesEN = toSet(`i i'm i've i'd and but or the a an is was has who which that he she they we my our it so`)

// relativeNamedEN: "My wife is called Anna", "My daughter's name is Sophie".
func relativeNamedEN(m *match, rest string, loc []int) ([]draft, int, bool) {
	raw := strings.ToLower(m.group(1))
	name, n := nameWordsEN(rest[loc[1]:])
	if name == "" {
		return nil, 0, false
	}
	return []draft{relativeDraft(relationsEN[raw], name, false, raw)}, loc[1] + n, true
}

// relativeApposEN: "My daughter Emma loves horses": Emma is the user's daughter; what
// she loves is hers.
func relativeApposEN(m *match, rest string, loc []int) ([]draft, int, bool) {
	raw := strings.ToLower(m.group(1))
	name, n := nameWordsEN(rest[loc[2*2]:])
	if name == "" {
		return nil, 0, false
	}
	return []draft{relativeDraft(relationsEN[raw], name, false, raw)}, loc[2*2] + n, true
}

// relativeAgeEN: "My son is 4": the user has a son (his age changes, the fact stays).
func relativeAgeEN(m *match, rest string, loc []int) ([]draft, int, bool) {
	raw := strings.ToLower(m.group(1))
	d := relativeDraft(relationsEN[raw], "", false, raw)
	d.content = "User's " + raw + " is " + m.group(2) + "."
	return []draft{d}, loc[2*2+1], true
}

// relativeAgeZH: "我儿子四岁", "我女儿今年七岁".
func relativeAgeZH(m *match, rest string, loc []int) ([]draft, int, bool) {
	raw := m.group(1)
	d := relativeDraft(relationsZH[raw], "", true, raw)
	d.content = sentenceZH("用户的" + strings.TrimPrefix(strings.TrimPrefix(m.head, "我"), "的"))
	return []draft{d}, loc[1], true
}

// ourRelativesEN: "Our twins start kindergarten this fall": the user has twins (what
// they do this fall is theirs, and short-lived).
func ourRelativesEN(m *match, rest string, loc []int) ([]draft, int, bool) {
	raw := strings.ToLower(m.group(1))
	if after := strings.ToLower(rest[loc[1]:]); strings.HasPrefix(after, " is due") || strings.HasPrefix(after, " is on the way") {
		return nil, 0, false // not born yet
	}
	rel := map[string]string{"twins": "twin", "kids": "kid", "children": "child", "son": "son", "daughter": "daughter",
		"baby": "baby", "boys": "son", "girls": "daughter"}[raw]
	content := "User has " + raw + "."
	if raw == "son" || raw == "daughter" || raw == "baby" {
		content = "User has a " + raw + "."
	}
	return []draft{{typ: memory.TypeFact, key: "family." + rel, content: content, importance: 3, confidence: 0.85}}, loc[1], true
}

// ourRelativesZH: "我家双胞胎今年秋天上幼儿园" → the user has twins.
func ourRelativesZH(m *match, rest string, loc []int) ([]draft, int, bool) {
	raw := m.group(1)
	rel, ok := relationsZH[raw]
	if !ok {
		rel = "child"
	}
	return []draft{{typ: memory.TypeFact, key: "family." + rel, content: "用户有" + raw + "。", importance: 3, confidence: 0.85}}, loc[1], true
}

// allergyHaveEN: "I have a peanut allergy (and a cat allergy)".
func allergyHaveEN(m *match, rest string, loc []int) ([]draft, int, bool) {
	var out []draft
	for _, g := range []string{m.group(1), m.group(2)} {
		if g = strings.TrimSpace(g); g != "" && validObject(g, false) {
			out = append(out, draft{typ: memory.TypeFact, key: "allergy." + slugOf(g), content: "User is allergic to " + g + ".", importance: 5, confidence: 0.9})
		}
	}
	return out, loc[1], len(out) > 0
}

// allRepliesEN: "Please use British spelling in all your replies": a standing rule
// without "from now on".
func allRepliesEN(m *match, rest string, loc []int) ([]draft, int, bool) {
	clause, n := cutObject(rest, false, false)
	if n < loc[1] || !validRule(clause, false, "") {
		return nil, 0, false
	}
	d := draft{typ: memory.TypeConstraint, key: ruleKey(clause), content: sentenceEN(objectRuleEN(clause)), importance: 4, confidence: 0.85}
	return []draft{d}, n, true
}

// relativeAndIEN: "My husband and I have three kids": the user has a husband; the
// rest ("I have three kids") is read next.
func relativeAndIEN(m *match, rest string, loc []int) ([]draft, int, bool) {
	raw := strings.ToLower(m.group(1))
	if r := relationsEN[raw]; r == "mother" || r == "father" {
		return nil, loc[2*2], true // "my mom and I went shopping": everyone has one; read on
	}
	return []draft{relativeDraft(relationsEN[raw], "", false, raw)}, loc[2*2], true
}

// relativeNamedZH: "我老婆叫安娜", "我女儿的名字叫苏菲"; and "我儿子乐乐…" when the name is
// unmistakable (a doubled character or 小/阿 + one).
func relativeNamedZH(m *match, rest string, loc []int) ([]draft, int, bool) {
	raw := m.group(1)
	after := rest[loc[1]:]
	var name string
	var n int
	if m.group(2) != "" { // 叫 / 名字是
		name, n = cutObject(after, true, false)
		if !validNameZH(name) {
			return nil, 0, false
		}
	} else {
		rs := []rune(after)
		if len(rs) < 2 || !(rs[0] == rs[1] || rs[0] == '小' || rs[0] == '阿') || !unicode.Is(unicode.Han, rs[1]) {
			return nil, 0, false
		}
		name = string(rs[:2])
		for _, w := range []string{"小时", "小学", "小区", "小孩", "小的", "小说", "小姐", "小组", "小心", "小朋", "阿姨", "小狗", "小猫", "小猪", "常常", "刚刚", "天天", "渐渐", "慢慢", "偷偷", "好好"} {
			if name == w {
				return nil, 0, false
			}
		}
		n = len(name)
	}
	return []draft{relativeDraft(relationsZH[raw], name, true, raw)}, loc[1] + n, true
}

// validNameZH accepts a given name after 叫: "安娜", "小美"; not "我早点睡" (叫 as
// "tell to") or "个不停" (叫 as "bark").
func validNameZH(name string) bool {
	if _, ok := nameValue(&match{item: name}); !ok || name == "" {
		return false
	}
	for _, p := range []string{"我", "你", "他", "她", "它", "个", "不", "一", "了", "声", "着", "得", "什么"} {
		if strings.HasPrefix(name, p) {
			return false
		}
	}
	return !strings.ContainsAny(name, "什么啥谁早睡别要")
}

// relativeAndZH: "我和老公有三个孩子" — the user has a husband; "有三个孩子" is read
// next with the user as subject.
func relativeAndZH(m *match, rest string, loc []int) ([]draft, int, bool) {
	raw := m.group(1)
	if r := relationsZH[raw]; r == "mother" || r == "father" {
		return nil, loc[1], true // "我和妈妈去逛街": everyone has one; read on
	}
	return []draft{relativeDraft(relationsZH[raw], "", true, raw)}, loc[1], true
}

// petNamedEN: "Our dog Biscuit is a golden retriever", "my cat's name is Luna".
func petNamedEN(m *match, rest string, loc []int) ([]draft, int, bool) {
	animal := strings.ToLower(m.group(1))
	start := loc[1]
	if loc[2*2] >= 0 {
		start = loc[2*2]
	}
	name, n := nameWordsEN(rest[start:])
	if name == "" {
		return nil, 0, false
	}
	d := draft{typ: memory.TypeFact, key: "pet." + strings.TrimSuffix(animal, "s"), content: "User has a " + animal + " named " + name + ".", importance: 3, confidence: 0.85}
	return []draft{d}, start + n, true
}

// petOnly accepts an animal: "we adopted a puppy" (not "I got a job").
func petOnly(m *match) (string, bool) {
	k, ok := petOrFamily(m)
	if !ok || !strings.HasPrefix(k, "pet.") || k == "pet.fish" {
		return "", false
	}
	return k, true
}

// Health conditions, English and Chinese, by the slug of the condition.
var (
	healthEN = map[string]string{"asthma": "asthma", "asthmatic": "asthma", "diabetes": "diabetes", "diabetic": "diabetes",
		"type 1 diabetes": "diabetes", "type 2 diabetes": "diabetes", "type one diabetes": "diabetes", "type two diabetes": "diabetes",
		"celiac disease": "celiac_disease", "coeliac disease": "celiac_disease", "celiac": "celiac_disease", "coeliac": "celiac_disease",
		"high blood pressure": "hypertension", "hypertension": "hypertension", "low blood pressure": "hypotension",
		"migraines": "migraine", "migraine": "migraine", "epilepsy": "epilepsy", "epileptic": "epilepsy", "arthritis": "arthritis",
		"adhd": "adhd", "ibs": "ibs", "eczema": "eczema", "psoriasis": "psoriasis", "a heart condition": "heart_disease",
		"heart disease": "heart_disease", "gout": "gout", "anemia": "anemia", "anaemia": "anemia", "anemic": "anemia",
		"anaemic": "anemia", "hypothyroidism": "hypothyroidism", "crohn's disease": "crohns_disease", "lupus": "lupus",
		"sleep apnea": "sleep_apnea", "tinnitus": "tinnitus", "dyslexia": "dyslexia", "dyslexic": "dyslexia",
		"scoliosis": "scoliosis", "a bad back": "back_pain", "chronic back pain": "back_pain", "chronic pain": "chronic_pain",
		"depression": "depression", "an anxiety disorder": "anxiety", "lactose intolerant": "lactose_intolerance",
		"lactose intolerance": "lactose_intolerance", "gluten intolerant": "gluten_intolerance", "gluten intolerance": "gluten_intolerance",
		"colorblind": "color_blindness", "colourblind": "color_blindness", "color blind": "color_blindness",
		"colour blind": "color_blindness", "color-blind": "color_blindness", "colour-blind": "color_blindness",
		"deaf": "hearing_loss", "hard of hearing": "hearing_loss", "partially sighted": "visual_impairment",
		"visually impaired": "visual_impairment", "hearing impaired": "hearing_loss", "autistic": "autism", "autism": "autism"}
	healthZH = map[string]string{"高血压": "hypertension", "低血压": "hypotension", "二型糖尿病": "diabetes", "一型糖尿病": "diabetes",
		"2型糖尿病": "diabetes", "1型糖尿病": "diabetes", "糖尿病": "diabetes", "哮喘": "asthma", "乳糖不耐受": "lactose_intolerance",
		"乳糖不耐": "lactose_intolerance", "麸质不耐受": "gluten_intolerance", "红绿色盲": "color_blindness", "色盲": "color_blindness",
		"癫痫": "epilepsy", "偏头痛": "migraine", "痛风": "gout", "贫血": "anemia", "心脏病": "heart_disease", "关节炎": "arthritis",
		"湿疹": "eczema", "鼻炎": "rhinitis", "过敏性鼻炎": "rhinitis", "抑郁症": "depression", "焦虑症": "anxiety", "胃病": "stomach_problems",
		"腰椎间盘突出": "herniated_disc", "甲亢": "hyperthyroidism", "甲减": "hypothyroidism", "乳糜泻": "celiac_disease", "自闭症": "autism",
		"耳聋": "hearing_loss", "一只耳朵听不见": "hearing_loss", "耳朵听不见": "hearing_loss", "听力不好": "hearing_loss",
		"听力受损": "hearing_loss", "弱视": "amblyopia", "高度近视": "myopia", "近视": "myopia"}
	healthNounsEN = alternation(healthEN, func(k string) bool {
		return !strings.HasSuffix(k, "ic") && !strings.HasSuffix(k, "ant") && !strings.Contains(k, "blind") && k != "deaf" && k != "hard of hearing" && !strings.HasSuffix(k, "impaired") && k != "partially sighted" && k != "celiac" && k != "coeliac"
	})
	healthAdjsEN  = alternation(healthEN, func(k string) bool { return !strings.Contains(healthNounsEN, "|"+regexp.QuoteMeta(k)+"|") })
	healthWordsZH = alternation(healthZH, nil)
)

// alternation is a regexp alternation of the map's keys that pass keep, longest
// first, framed by '|' so membership can be tested with Contains.
func alternation(m map[string]string, keep func(string) bool) string {
	sub := map[string]string{}
	for k, v := range m {
		if keep == nil || keep(k) {
			sub[k] = v
		}
	}
	return "|" + relationAlternation(sub) + "|"
}

func healthKeyEN(m *match) (string, bool) {
	if s, ok := healthEN[strings.ToLower(strings.TrimSpace(m.group(1)))]; ok {
		return "health." + s, true
	}
	return "", false
}

func healthKeyZH(m *match) (string, bool) {
	if s, ok := healthZH[m.group(1)]; ok {
		return "health." + s, true
	}
	return "", false
}

// goalWordsEN/ZH: what one trains or prepares for over months ("a marathon", "the
// bar exam", "考研"), as opposed to tomorrow's meeting.
var (
	goalWordsEN = toSet(`marathon marathons triathlon race exam exams test bar ielts toefl gre gmat sat lsat mcat jlpt hsk
		certification certificate championship championships competition tournament olympiad audition ironman ultramarathon
		5k 10k finals boards qualification`)
	goalWordsZH = []string{"马拉松", "半马", "全马", "考试", "考研", "高考", "中考", "雅思", "托福", "司法考试", "法考", "比赛", "竞赛",
		"考证", "证书", "注会", "铁人三项", "考公", "公务员考试", "资格考试", "日语能力考", "四级", "六级"}
)

// trainingGoalEN: "I'm training for a marathon in April" → goal.marathon. The date is
// part of the goal, not a window around now.
func trainingGoalEN(m *match, rest string, loc []int) ([]draft, int, bool) {
	obj, n := cutObject(rest[loc[1]:], false, false)
	what := trimTimeEN(obj)
	low := strings.ToLower(what)
	if i := strings.Index(low, " on "); i > 0 {
		what, low = what[:i], low[:i]
	}
	ok := false
	for _, w := range strings.Fields(low) {
		ok = ok || goalWordsEN[strings.Trim(w, ".,")]
	}
	if !ok || deicticEN[strings.Fields(low + " x")[0]] {
		return nil, 0, false
	}
	d := draft{typ: memory.TypeGoal, key: "goal." + candidate.Slug(what), content: sentenceEN(thirdPersonEN(m.head) + " " + objectEN(obj)), importance: 4, confidence: 0.85}
	return []draft{d}, loc[1] + n, true
}

// trainingGoalZH: "我在准备四月的马拉松" → goal.marathon.
func trainingGoalZH(m *match, rest string, loc []int) ([]draft, int, bool) {
	obj, n := cutObject(rest[loc[1]:], true, false)
	what := obj
	if i := strings.LastIndex(what, "的"); i >= 0 {
		what = what[i+len("的"):]
	}
	ok := false
	for _, w := range goalWordsZH {
		ok = ok || strings.Contains(what, w)
	}
	if !ok || utf8.RuneCountInString(obj) > 16 {
		return nil, 0, false
	}
	d := draft{typ: memory.TypeGoal, key: "goal." + slugOf(what), content: sentenceZH(thirdPersonZH(m.head + obj)), importance: 4, confidence: 0.85}
	return []draft{d}, loc[1] + n, true
}

// savingGoal: "I'm saving up to buy a house in the next few years", "我在攒钱，打算几年内买房".
func savingGoal(m *match, rest string, loc []int) ([]draft, int, bool) {
	zh := m.zh
	obj, n := cutObject(rest[loc[1]:], zh, false)
	what := obj
	var content string
	if zh {
		what = stripLeadingZH(what, []string{"几年内", "今年", "明年", "以后", "将来", "未来", "尽快", "早日", "在"})
		content = sentenceZH(thirdPersonZH(m.head + obj))
	} else {
		what = trimTimeEN(what)
		if i := strings.Index(strings.ToLower(what), " in the next"); i > 0 {
			what = what[:i]
		}
		content = sentenceEN(thirdPersonEN(m.head) + " " + objectEN(obj))
	}
	if what == "" || !validObject(what, zh) || strings.Contains(strings.ToLower(what), "rainy day") {
		return nil, 0, false // "saving for a rainy day": a saying
	}
	d := draft{typ: memory.TypeGoal, key: "goal." + slugOf(what), content: content, importance: 4, confidence: 0.8}
	return []draft{d}, loc[1] + n, true
}

// businessZH: "我开了一家叫麦香的面包店" → project.<麦香>.
func businessZH(m *match, rest string, loc []int) ([]draft, int, bool) {
	name := m.group(1) + m.group(2)
	if i := strings.Index(name, "叫"); i >= 0 {
		if j := strings.Index(name[i:], "的"); j > 0 {
			name = name[i+len("叫") : i+j]
		}
	}
	d := draft{typ: memory.TypeProject, key: "project." + slugOf(strings.TrimSuffix(name, "的")), content: sentenceZH(thirdPersonZH(m.head)), importance: 3, confidence: 0.8}
	return []draft{d}, loc[1], true
}

// projectZH keys a Chinese project by its name ("一个叫Tidy的开源库" → tidy) or by
// what it is about.
func projectZH(m *match) (string, bool) {
	item := strings.TrimSuffix(m.item, "的")
	if i := strings.Index(item, "叫"); i >= 0 {
		item = strings.TrimSuffix(item[i+len("叫"):], "的")
	}
	item = stripLeadingZH(item, []string{"一个", "一本", "一部", "一篇", "一款", "个", "关于"})
	if item == "" {
		return "", false
	}
	return "project." + slugOf(item), true
}

// maritalEN: "I'm married", "I'm married with two children" (two facts).
func maritalEN(m *match, rest string, loc []int) ([]draft, int, bool) {
	if after := strings.ToLower(rest[loc[1]:]); strings.HasPrefix(after, " to my ") || strings.HasPrefix(after, " to the ") {
		return nil, 0, false // "I'm married to my job": a joke, not a marital status
	}
	out := []draft{{typ: memory.TypeFact, key: "family.marital", content: statement(rest[:loc[1]], false), importance: 3, confidence: 0.85}}
	n := loc[1]
	if k := loc[2]; k >= 0 { // "… with two children"
		item := rest[k:loc[3]]
		if key, ok := petOrFamily(&match{item: item}); ok {
			out[0].content = statement(rest[:k-len(" with ")], false)
			out = append(out, draft{typ: memory.TypeFact, key: key, content: "User has " + item + ".", importance: 3, confidence: 0.85})
		}
	}
	return out, n, true
}

// favoriteReversedEN: "Jazz is my favorite music".
func favoriteReversedEN(m *match, rest string, loc []int) ([]draft, int, bool) {
	what := strings.TrimSpace(m.group(1))
	thing := strings.TrimSpace(m.group(2))
	ws := strings.Fields(strings.ToLower(what))
	if len(ws) == 0 || deicticEN[ws[0]] || thing == "" || len(ws) > 6 {
		return nil, 0, false
	}
	d := draft{typ: memory.TypePreference, key: "favorite." + slugOf(thing), content: sentenceEN("User's favorite " + thing + " is " + what), importance: 3, confidence: 0.85}
	return []draft{d}, loc[1], true
}

// unpleasant objects are not liked, whatever the words say ("I just love waiting in
// line for two hours", "我最喜欢排两个小时的队了"): sarcasm, or a remark.
var (
	unpleasantEN = []string{"waiting", "traffic", "queue", "queues", "queuing", "queueing", "overtime", "delays", "delayed",
		"stuck", "paperwork", "taxes", "being ignored", "mondays", "cancelled", "canceled", "commuting", "commute"}
	unpleasantZH   = []string{"排队", "堵车", "加班", "等人", "被放鸽子", "延误", "塞车"}
	unpleasantZHRe = regexp.MustCompile(`排.{0,8}队`)
)

func unpleasant(obj string) bool {
	if hasCJK(obj) {
		for _, w := range unpleasantZH {
			if strings.Contains(obj, w) {
				return true
			}
		}
		return unpleasantZHRe.MatchString(obj)
	}
	low := strings.ToLower(obj)
	for _, w := range unpleasantEN {
		if containsWordASCII(low, w) || strings.Contains(low, " "+w) || strings.HasPrefix(low, w) {
			return true
		}
	}
	return false
}

// zhDomain finds the area of a Chinese object that has no translation from the
// known words it contains ("墨西哥美食" → food, "去阿尔卑斯山徒步" → travel).
func zhDomain(obj string) string {
	for _, e := range zhSlugsByLength {
		if utf8.RuneCountInString(e.zh) >= 2 && strings.Contains(obj, e.zh) {
			if d := domainOf(e.slug); d != "interest" {
				return d
			}
		}
	}
	for suffix, d := range map[string]string{"剧": "film", "片": "film", "菜": "food", "歌": "music", "曲": "music", "书": "reading", "酒": "drink", "茶": "drink"} {
		if strings.HasSuffix(obj, suffix) {
			return d
		}
	}
	return "interest"
}

// splitAll splits any list, "A and B" included: "penicillin and latex", "青霉素和花粉".
func splitAll(obj string, zh bool) []string {
	var parts []string
	if zh {
		for _, p := range strings.Split(obj, "、") {
			for _, q := range strings.Split(p, "以及") {
				for _, r := range strings.Split(q, "和") {
					parts = append(parts, strings.Split(r, "及")...)
				}
			}
		}
	} else {
		low := strings.ToLower(obj)
		start := 0
		for i := 0; i < len(low); {
			sep := ""
			for _, s := range []string{", and ", ", or ", ", ", " and ", " or ", " & "} {
				if strings.HasPrefix(low[i:], s) {
					sep = s
					break
				}
			}
			if sep == "" {
				i++
				continue
			}
			parts = append(parts, obj[start:i])
			i += len(sep)
			start = i
		}
		parts = append(parts, obj[start:])
	}
	var out []string
	for _, p := range parts {
		if p = trimObject(p, zh); p != "" {
			out = append(out, p)
		}
		if len(out) == 6 {
			break
		}
	}
	return out
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

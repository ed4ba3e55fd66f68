package profile

import (
	"cmp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Topic weights: a memory is what extraction judged worth keeping, so it counts
// for two messages.
const (
	messageWeight  = 1
	memoryWeight   = 2
	minTopicWeight = 2 // one passing mention is not a common topic
	minTopicDocs   = 2 // and it comes up in at least two texts
	// maxPhraseRunes bounds Chinese phrases. Topics are short (任务管理, 数据分析);
	// longer phrases are counted so that the pieces of a repeated longer phrase
	// (务分配系 of 任务分配系统) give way to it.
	maxPhraseRunes = 6
)

// workKeyHeads are the first segments of memory keys about work. Only such memories
// (and project memories) shape topics, expertise and reports: the profile is shown
// to managers, and a user's health, family or diet is none of theirs.
var workKeyHeads = []string{
	"work", "job", "career", "project", "projects", "skill", "skills", "expertise", "education",
	"learning", "language", "team", "task", "tasks", "role", "certification", "tool", "tools",
	"工作", "项目", "技能", "职业", "学习", "专业", "团队", "任务",
}

// personalKeyHeads are the first segments of memory keys about the user's private
// life. Such memories never shape what a manager can see, even when they say what
// the user is good at.
var personalKeyHeads = []string{
	"health", "medical", "medication", "allergy", "diet", "food", "drink", "family", "relationship", "partner",
	"religion", "politics", "finance", "money", "home", "address", "pet", "birth", "sexuality", "hobby",
	"健康", "医疗", "过敏", "饮食", "家庭", "家人", "宗教", "政治", "财务", "住址", "宠物",
}

// IsPersonalMemory reports whether a memory is about the user's private life.
func IsPersonalMemory(m MemoryFact) bool {
	return slices.Contains(personalKeyHeads, keyHead(m.Key))
}

func keyHead(key string) string {
	head, _, _ := strings.Cut(key, ".")
	head, _, _ = strings.Cut(head, "_")
	return head
}

// IsWorkMemory reports whether a memory is about the user's work.
func IsWorkMemory(m MemoryFact) bool {
	if m.Type == "project" {
		return true
	}
	return slices.Contains(workKeyHeads, keyHead(m.Key))
}

// topicStopWords are English words that are frequent in requests to an assistant
// but name no topic ("please help me make a plan for today").
var topicStopWords = setOf(strings.Fields(`
	able also anything back could day days did does doing done even evening every everyone everything
	find get gets getting give go goes going good got great hello help hey keep know let lets like look
	lot lots make many maybe month months morning much need needs new next now okay one people person
	please put really right said say see should someone something sorry start still stuff sure take tell
	thank thanks thing things think time today tomorrow tonight try two use used using want wants way
	week weeks well what when where which will would year years yes yesterday
`))

// cjkBreakRunes never occur inside a topic: particles, pronouns, the copula and
// conjunctions (任务管理和周报 is two topics). cjkEdgeRunes may occur inside one
// (统一, 一致性) but never start or end it: measure words, modal and request verbs
// (帮…, …一下), demonstratives.
var (
	cjkBreakRunes = setOf(strings.Split("的了吗呢吧啊呀嘛么我你您他她它们是在和与及或", ""))
	cjkEdgeRunes  = setOf(strings.Split("一个有要会能想说让请帮不没再去来上下些得地着过这那把被给对从向很太也都就还又", ""))
)

// cjkBreakWords split a run of Chinese like punctuation: function words, request
// verbs and time words around the topic (帮我整理周报生成 → 周报生成, 擅长数据分析 →
// 数据分析). A phrase never contains one.
var cjkBreakWords = breakWordsByFirstRune(strings.Fields(`
	记住 整理 擅长 帮忙 告诉 希望 喜欢 需要 想要 准备 继续 开始 修改 看看 一下 还有 以及 然后 关于 有关
	请问 谢谢 你好 可以 能否 是否 怎么 如何 什么 为什么 为何 已经 因为 所以 但是 如果 今天 明天 昨天 现在
	知道 觉得 时候 自己 非常 比较 其实 应该 可能 感觉 以后 之前 没有 就是 事情 东西 时间 方面 情况 问题
`))

// breakWordsByFirstRune indexes the break words by their first character.
func breakWordsByFirstRune(words []string) map[rune][][]rune {
	out := map[rune][][]rune{}
	for _, w := range words {
		r := []rune(w)
		out[r[0]] = append(out[r[0]], r)
	}
	return out
}

// Topics finds the user's common topics: English words (by stem, shown as the
// spelling used most) and Chinese phrases of two to six characters, counted once
// per message of the last TopicsWindow and per work memory, heaviest first, at
// most MaxTopics. Count is in how many of them the topic came up. A Chinese phrase
// that only ever occurs inside a longer one gives way to it (务管 to 任务管理).
func Topics(msgs []MessageFact, memories []MemoryFact, now time.Time, terms Terms) []TopicCount {
	stats := map[string]*topicStat{}
	add := func(text string, weight int) {
		for key, surface := range topicUnits(text, terms) {
			st := stats[key]
			if st == nil {
				st = &topicStat{key: key, surfaces: map[string]int{}}
				stats[key] = st
			}
			st.docs++
			st.weight += weight
			st.surfaces[surface]++
		}
	}
	for _, m := range msgs {
		if !m.At.After(now) && now.Sub(m.At) <= TopicsWindow {
			add(m.Text, messageWeight)
		}
	}
	for _, m := range memories {
		if IsWorkMemory(m) {
			add(m.Content, memoryWeight)
		}
	}
	dropEnclosedPhrases(stats)
	var kept []*topicStat
	for _, st := range stats {
		if st.weight >= minTopicWeight && st.docs >= minTopicDocs {
			kept = append(kept, st)
		}
	}
	slices.SortFunc(kept, func(a, b *topicStat) int {
		if c := cmp.Compare(b.weight, a.weight); c != 0 {
			return c
		}
		if c := cmp.Compare(b.docs, a.docs); c != 0 {
			return c
		}
		return cmp.Compare(a.key, b.key)
	})
	var out []TopicCount
	for _, st := range kept[:min(len(kept), MaxTopics)] {
		out = append(out, TopicCount{Topic: st.display(), Count: st.docs})
	}
	return out
}

type topicStat struct {
	key      string
	docs     int
	weight   int
	surfaces map[string]int
}

// display is the spelling most used, the shortest on a tie.
func (st *topicStat) display() string {
	best, bestN := "", 0
	for s, n := range st.surfaces {
		if n > bestN || (n == bestN && (len(s) < len(best) || (len(s) == len(best) && s < best))) {
			best, bestN = s, n
		}
	}
	return best
}

// topicUnits returns the topic candidates of one text, each once: key → surface.
// English words go through the analyser one at a time so each stem keeps the word
// it came from; Chinese runs are analysed into bigrams, which are chained into
// phrases of up to maxPhraseRunes characters.
func topicUnits(text string, terms Terms) map[string]string {
	out := map[string]string{}
	for _, run := range splitRuns(text) {
		if run.cjk {
			for _, p := range cjkPhrases(terms(run.text)) {
				out[p] = p
			}
			continue
		}
		word := strings.ToLower(run.text)
		if utf8.RuneCountInString(word) < 3 || topicStopWords[word] || !hasLetter(word) {
			continue
		}
		if ts := terms(run.text); len(ts) == 1 && !topicStopWords[ts[0]] {
			out[ts[0]] = word
		}
	}
	return out
}

// cjkPhrases chains the bigrams of one CJK run (the analyser's terms, single
// characters among them) into the stretches between break characters and break
// words, and returns every phrase of 2 to maxPhraseRunes characters of them that
// neither starts nor ends with an edge character.
func cjkPhrases(runTerms []string) []string {
	var chains [][]rune
	var chain []rune
	for _, t := range runTerms {
		r := []rune(t)
		if len(r) != 2 {
			continue
		}
		if cjkBreakRunes[string(r[0])] || cjkBreakRunes[string(r[1])] {
			chains, chain = appendChain(chains, chain), nil
			continue
		}
		if len(chain) > 0 && chain[len(chain)-1] == r[0] {
			chain = append(chain, r[1])
			continue
		}
		chains, chain = appendChain(chains, chain), slices.Clone(r)
	}
	chains = appendChain(chains, chain)
	var out []string
	for _, c := range splitAtBreakWords(chains) {
		for i := range c {
			for n := 2; n <= maxPhraseRunes && i+n <= len(c); n++ {
				p := c[i : i+n]
				if !cjkEdgeRunes[string(p[0])] && !cjkEdgeRunes[string(p[n-1])] {
					out = append(out, string(p))
				}
			}
		}
	}
	return out
}

// splitAtBreakWords cuts each chain at every break word, leaving the word out.
func splitAtBreakWords(chains [][]rune) [][]rune {
	var out [][]rune
	for _, c := range chains {
		start := 0
		for i := 0; i < len(c); {
			w := breakWordAt(c, i)
			if w == 0 {
				i++
				continue
			}
			out = appendChain(out, c[start:i])
			i += w
			start = i
		}
		out = appendChain(out, c[start:])
	}
	return out
}

// breakWordAt returns the length of the break word at c[i:], or 0.
func breakWordAt(c []rune, i int) int {
	for _, w := range cjkBreakWords[c[i]] {
		if i+len(w) <= len(c) && slices.Equal(c[i:i+len(w)], w) {
			return len(w)
		}
	}
	return 0
}

func appendChain(chains [][]rune, c []rune) [][]rune {
	if len(c) >= 2 {
		chains = append(chains, c)
	}
	return chains
}

// dropEnclosedPhrases removes each Chinese phrase that came up only inside a
// phrase one character longer (in at least as many texts).
func dropEnclosedPhrases(stats map[string]*topicStat) {
	var enclosed []string
	for key, st := range stats {
		r := []rune(key)
		if len(r) < 3 || !isCJKRune(r[0]) {
			continue
		}
		for _, sub := range []string{string(r[:len(r)-1]), string(r[1:])} {
			if s, ok := stats[sub]; ok && st.docs >= s.docs {
				enclosed = append(enclosed, sub)
			}
		}
	}
	for _, k := range enclosed {
		delete(stats, k)
	}
}

type textRun struct {
	text string
	cjk  bool
}

// splitRuns cuts text into words of letters and digits and runs of CJK characters.
func splitRuns(text string) []textRun {
	var out []textRun
	start, cjk := -1, false
	flush := func(end int) {
		if start >= 0 {
			out = append(out, textRun{text: text[start:end], cjk: cjk})
			start = -1
		}
	}
	for i, r := range text {
		isCJK := isCJKRune(r)
		isWord := !isCJK && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'')
		switch {
		case !isCJK && !isWord:
			flush(i)
		case start >= 0 && isCJK != cjk:
			flush(i)
			start, cjk = i, isCJK
		case start < 0:
			start, cjk = i, isCJK
		}
	}
	flush(len(text))
	return out
}

func isCJKRune(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

func hasLetter(s string) bool {
	return strings.IndexFunc(s, unicode.IsLetter) >= 0
}

func setOf(words []string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		if w = strings.TrimSpace(w); w != "" {
			m[w] = true
		}
	}
	return m
}

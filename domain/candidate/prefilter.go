package candidate

import (
	"strings"
	"unicode/utf8"
)

// Prefilter decides, without a model, whether a user message can carry anything
// worth keeping. When it says no, the pipeline marks the message SKIPPED with the
// reason and spends no LLM call on it.
//
// It is conservative: a message is skipped only when every clause of it is small talk
// (greeting, thanks, acknowledgement, farewell), a question, or a request for the
// current turn, and nothing in it speaks about the user ("I'm vegetarian, what should
// I cook?" passes) or asks for something lasting ("from now on", "记住", "以后都…").
// Plain statements pass even without "I", because an answer such as "Berlin." may
// complete a question the assistant asked. reason is a Reason, empty when worth.
func Prefilter(text string) (worth bool, reason string) {
	r := PrefilterReason(text)
	return r == "", string(r)
}

// PrefilterReason is Prefilter returning the Reason itself ("" when worth keeping).
func PrefilterReason(text string) Reason {
	t := strings.TrimSpace(text)
	if t == "" {
		return ReasonEmptyMessage
	}
	low := lowerASCII(Fold(t))
	if contentRunes(low) < 2 {
		return ReasonTooShort
	}
	if firstMatch(low, standingEN, standingZH) != "" || firstMatch(low, selfEN, selfZH) != "" || firstMatch(low, identityEN, identityZH) != "" {
		return ""
	}
	if firstMatch(low, reminderEN, reminderZH) != "" &&
		(firstMatch(low, conditionEN, conditionZH) != "" || firstMatch(low, recurrenceEN, recurrenceZH) != "") {
		return "" // "remind me to take an umbrella when it rains / every morning": a standing rule
	}
	seen := map[Reason]bool{}
	for _, s := range sentences(low) {
		question := isQuestionSentence(s)
		for _, c := range clauses(s) {
			k := classifyClause(c, question)
			if k == "" {
				return ""
			}
			seen[k] = true
		}
	}
	for _, r := range []Reason{ReasonQuestion, ReasonCommand, ReasonThanks, ReasonGreeting, ReasonFarewell, ReasonAck} {
		if seen[r] {
			return r
		}
	}
	return ReasonTooShort // only punctuation-separated fragments without content
}

func isQuestionSentence(s string) bool {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "?") || strings.HasSuffix(s, "？") {
		return true
	}
	return false
}

// clauseKinds are the kinds of clause that state nothing, tried in order on a
// clause whose leading interjections are peeled off; the first that fits names it.
var clauseKinds = []struct {
	kind Reason
	is   func(c string, inQuestion bool) bool
}{
	{ReasonThanks, func(c string, _ bool) bool { return opensWith(c, thanksEN, thanksZH) }},
	{ReasonGreeting, func(c string, _ bool) bool { return isGreeting(c) }},
	{ReasonFarewell, func(c string, _ bool) bool { return opensWith(c, farewellEN, farewellZH) }},
	{ReasonAck, func(c string, _ bool) bool {
		return isExact(c, ackEN) || isExact(c, ackZH) || opensWith(c, ackPrefixEN, ackPrefixZH)
	}},
	// "I was wondering…", "我想问…": a question in statement form.
	{ReasonQuestion, func(c string, _ bool) bool { return opensWith(c, askingEN, askingZH) }},
	// A first-person statement inside a question ("…, I'm learning Chinese, can you
	// help?") may carry a fact: conservative means it counts as content.
	{ReasonQuestion, func(c string, inQuestion bool) bool {
		return isQuestionClause(c) || inQuestion && !firstPersonStatement(c)
	}},
	{ReasonCommand, func(c string, _ bool) bool { return isCommand(c) }},
}

// classifyClause names the kind of a non-informative clause, or "" for content.
func classifyClause(c string, inQuestion bool) Reason {
	c = trimPunct(c)
	if c == "" || stripVocatives(c) == "" {
		return ReasonAck // punctuation or a bare form of address ("my friend")
	}
	if opensWith(c, ackPrefixEN, ackPrefixZH) {
		return ReasonAck
	}
	c = peelInterjections(c)
	for _, k := range clauseKinds {
		if k.is(c, inQuestion) {
			return k.kind
		}
	}
	return ""
}

// peelInterjections drops leading interjections ("okay I'll try", "好的我会…") so
// that the rest is judged on its own; a clause that is only an interjection stays.
// First-person formulas are not peeled: "I will" + "try that" must not turn into a
// command. Chinese interjections are peeled only from a clause with Chinese in it.
func peelInterjections(c string) string {
	zh := hasCJK(c)
	for {
		p := firstPrefixWord(c, interjectionsEN)
		if p == "" && zh {
			p = firstPrefixWord(c, interjectionsZH)
		}
		if p == "" || len(p) == len(c) {
			return c
		}
		rest := trimPunct(c[len(p):])
		if rest == "" {
			return c
		}
		c = rest
	}
}

// opensWith reports whether c opens with one of the English or Chinese phrases.
func opensWith(c string, en, zh []string) bool {
	return firstPrefixWord(c, en) != "" || firstPrefixWord(c, zh) != ""
}

func isExact(c string, list []string) bool {
	c = stripVocatives(c)
	for _, p := range list {
		if c == p {
			return true
		}
	}
	return false
}

func isGreeting(c string) bool {
	if firstMatch(c, greetingContains, greetingContains) != "" {
		return true
	}
	p := firstPrefixWord(c, greetingEN)
	if p == "" {
		p = firstPrefixWord(c, greetingZH)
	}
	if p == "" {
		return false
	}
	rest := stripVocatives(trimPunct(c[len(p):]))
	if hasCJK(rest) {
		return utf8.RuneCountInString(rest) <= 4
	}
	return len(words(rest)) <= 2 // "hi luna", "hello there my friend"
}

// stripVocatives drops forms of address ("friend", "AI伴侣") wherever they stand.
func stripVocatives(c string) string {
	for _, v := range vocativesZH {
		c = strings.ReplaceAll(c, v, "")
	}
	ws := words(c)
	if len(ws) == 0 || hasCJK(c) {
		return trimPunct(c)
	}
	joined := " " + strings.Join(ws, " ") + " "
	for _, v := range vocativesEN {
		joined = strings.ReplaceAll(joined, " "+v+" ", " ")
	}
	return strings.TrimSpace(joined)
}

func isQuestionClause(c string) bool {
	if hasCJK(c) {
		for _, e := range questionEndZH {
			if strings.HasSuffix(c, e) {
				return true
			}
		}
		for _, q := range questionZH {
			if strings.Contains(c, q) {
				return true
			}
		}
	}
	ws := words(c)
	if len(ws) == 0 {
		return false
	}
	if len(ws) > 1 && (ws[0] == "is" && ws[1] == "there" || ws[0] == "are" && ws[1] == "there") {
		return true
	}
	for _, q := range questionStartEN {
		if ws[0] == q {
			// "do you…", "can I…", "how …": the auxiliary opens a question only when
			// a subject follows; a wh-word always does.
			return true
		}
	}
	return strings.HasPrefix(c, "how about") || strings.HasPrefix(c, "what about")
}

func isCommand(c string) bool {
	if firstPrefixWord(c, commandZH) != "" {
		return true
	}
	ws := words(c)
	if len(ws) == 0 {
		return false
	}
	if ws[0] == "please" || ws[0] == "pls" || ws[0] == "plz" || ws[0] == "kindly" {
		return true
	}
	return firstPrefixWord(c, commandEN) != ""
}

// LooksLikeQuestion reports whether a clause or sentence asks rather than states:
// it ends with a question mark, opens with a question word or auxiliary ("how",
// "do you"), or carries a Chinese question word or particle (什么, 吗).
func LooksLikeQuestion(text string) bool {
	low := lowerASCII(Fold(strings.TrimSpace(text)))
	return isQuestionSentence(low) || isQuestionClause(trimPunct(low))
}

// firstPersonStatement reports whether a clause opens with the speaker as subject.
func firstPersonStatement(c string) bool {
	if firstPrefixWord(c, []string{"i", "i'm", "i've", "i'd", "i'll", "my", "we", "we're", "our"}) != "" {
		return true
	}
	for _, opener := range []string{"", "其实", "最近", "不过", "但是", "而且", "另外", "因为", "所以"} {
		if strings.HasPrefix(c, opener+"我") {
			return true
		}
	}
	return false
}

package rules

import (
	"bufio"
	"context"
	"embed"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"engram/domain/conversation"
	"engram/ports"
)

// The offline summarizer: the recursive session summary without a model. It is
// extractive and deterministic: the previous summary and the new messages are cut
// into sentences, each sentence scores for the evidence it carries (a decision,
// plan, to-do, constraint or preference; a number; a date or time; a person's
// name), sentences with none are dropped (greetings, thanks, small talk), and the
// best ones that fit the budget are kept in their original order, each new one
// attributed to its speaker. The word lists are data (summary/en.txt, zh.txt).

// DefaultSummaryBudget is the summary's upper bound: 300 Chinese characters, or 300
// words of another language.
const DefaultSummaryBudget = 300

// SummarizerOptions bound the offline summary.
type SummarizerOptions struct {
	Budget int // characters (Chinese) or words (otherwise); 0: DefaultSummaryBudget
}

// Summarizer implements ports.Summarizer without a model.
type Summarizer struct {
	budget int
}

var _ ports.Summarizer = (*Summarizer)(nil)

// NewSummarizer builds the offline summarizer.
func NewSummarizer(opts SummarizerOptions) *Summarizer {
	if opts.Budget <= 0 {
		opts.Budget = DefaultSummaryBudget
	}
	return &Summarizer{budget: opts.Budget}
}

// summarySentence is one candidate sentence of the new summary.
type summarySentence struct {
	text  string
	label string // the speaker ("User: "), written before the first kept sentence of a message
	msg   int    // which message it comes from; -1: the previous summary
	score int
	order int  // position in the input: previous summary first, then messages
	user  bool // said by the user (or carried over from the previous summary)
}

// Summarize keeps the sentences of the previous summary and of the messages that
// carry facts, decisions, names, numbers and dates, within the budget. It never
// returns an empty summary for messages that have text: with nothing scoring,
// the previous summary stays, or the first user sentence starts one.
func (s *Summarizer) Summarize(_ context.Context, in ports.SummaryInput) (string, ports.LLMUsage, error) {
	if len(in.Messages) == 0 {
		return in.Previous, ports.LLMUsage{}, nil
	}
	zh := mostlyChinese(in)
	cands := candidateSentences(in, zh)
	kept := s.pick(cands, zh)
	if len(kept) == 0 {
		if p := strings.TrimSpace(in.Previous); p != "" {
			return p, ports.LLMUsage{}, nil
		}
		kept = firstUserSentence(cands)
	}
	if len(kept) == 0 {
		return "", ports.LLMUsage{}, fmt.Errorf("rules: summarize: the messages hold no text")
	}
	return joinSentences(kept, zh), ports.LLMUsage{}, nil
}

// candidateSentences cuts the previous summary and the messages into scored
// sentences.
func candidateSentences(in ports.SummaryInput, zh bool) []summarySentence {
	var out []summarySentence
	// The previous summary was kept for a reason: its sentences stay unless newer
	// evidence needs the room.
	for _, sent := range splitSentences(in.Previous) {
		out = append(out, summarySentence{text: sent, msg: -1, score: scoreSentence(sent, zh) + 2, order: len(out), user: true})
	}
	for n, m := range in.Messages {
		label := speakerLabel(m.Role, zh)
		for _, sent := range splitSentences(m.Content) {
			score := scoreSentence(sent, zh)
			if m.Role == conversation.RoleUser {
				score++ // the user's own words are the facts; the assistant's are context
			} else {
				score-- // an answer needs more evidence than a statement to be kept
			}
			out = append(out, summarySentence{text: sent, label: label, msg: n, score: score, order: len(out), user: m.Role == conversation.RoleUser})
		}
	}
	return out
}

// pick keeps the best-scoring sentences that fit the budget (ties: the newer
// first), then puts them back in their order, each text once.
func (s *Summarizer) pick(cands []summarySentence, zh bool) []summarySentence {
	ranked := slices.Clone(cands)
	slices.SortStableFunc(ranked, func(a, b summarySentence) int {
		if a.score != b.score {
			return b.score - a.score
		}
		return b.order - a.order
	})
	var kept []summarySentence
	seen := map[string]bool{}
	used := 0
	for _, c := range ranked {
		key := strings.ToLower(strings.TrimSpace(c.text))
		if c.score <= 1 || seen[key] {
			continue
		}
		cost := summaryLength(c.label+c.text, zh)
		if used+cost > s.budget {
			continue
		}
		seen[key] = true
		used += cost
		kept = append(kept, c)
	}
	slices.SortFunc(kept, func(a, b summarySentence) int { return a.order - b.order })
	return kept
}

func firstUserSentence(cands []summarySentence) []summarySentence {
	for _, c := range cands {
		if c.user {
			c.text = clipRunes(c.text, DefaultSummaryBudget)
			return []summarySentence{c}
		}
	}
	if len(cands) > 0 {
		c := cands[0]
		c.text = clipRunes(c.text, DefaultSummaryBudget)
		return []summarySentence{c}
	}
	return nil
}

// joinSentences writes the kept sentences, each message's first one after its
// speaker's label.
func joinSentences(kept []summarySentence, zh bool) string {
	parts := make([]string, len(kept))
	prev := -2
	for i, k := range kept {
		parts[i] = k.text
		if k.msg != prev && k.label != "" {
			parts[i] = k.label + k.text
		}
		prev = k.msg
	}
	if zh {
		return strings.Join(parts, "")
	}
	return strings.Join(parts, " ")
}

func speakerLabel(role conversation.Role, zh bool) string {
	switch {
	case role == conversation.RoleUser && zh:
		return "用户："
	case zh:
		return "助手："
	case role == conversation.RoleUser:
		return "User: "
	default:
		return "Assistant: "
	}
}

// scoreSentence counts the kinds of evidence the sentence shows: each of a
// decision word, a date word, a number and a name adds 2.
func scoreSentence(sent string, zh bool) int {
	low := strings.ToLower(sent)
	score := 0
	lex := summaryWordsEN
	if zh {
		lex = summaryWordsZH
	}
	for _, kind := range []string{"decision", "date", "name"} {
		if lex.has(kind, low, zh) {
			score += 2
		}
	}
	if hasNumber(sent) {
		score += 2
	}
	if !zh && hasNameEN(sent) {
		score += 2
	}
	if strings.HasSuffix(strings.TrimSpace(sent), "?") || strings.HasSuffix(strings.TrimSpace(sent), "？") {
		score-- // a question asks; the answer holds the fact
	}
	return score
}

func hasNumber(s string) bool {
	for _, r := range s {
		if unicode.IsDigit(r) || strings.ContainsRune("一二三四五六七八九十百千万两", r) {
			return true
		}
	}
	return false
}

// hasNameEN finds a capitalised word that does not open the sentence (and is not
// "I" or a label): a person, place or organisation.
func hasNameEN(s string) bool {
	words := strings.Fields(s)
	for i, w := range words {
		w = strings.Trim(w, ".,;:!?\"'()")
		if i == 0 || w == "" || w == "I" || w == "User" || w == "Assistant" || strings.HasSuffix(words[i-1], ":") {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(w); unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// splitSentences cuts text after . ! ? 。！？； and line breaks.
func splitSentences(text string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if t := strings.TrimSpace(b.String()); t != "" {
			out = append(out, clipRunes(t, 200))
		}
		b.Reset()
	}
	runes := []rune(text)
	for i, r := range runes {
		if r == '\n' {
			flush()
			continue
		}
		b.WriteRune(r)
		switch r {
		case '。', '！', '？', '；':
			flush()
		case '.', '!', '?':
			// "3.5" and "e.g." stay whole: a sentence ends before a space or the
			// end, and not after an abbreviation.
			if (i+1 == len(runes) || unicode.IsSpace(runes[i+1])) && !endsWithAbbreviation(b.String()) {
				flush()
			}
		}
	}
	flush()
	return out
}

var abbreviations = []string{"e.g.", "i.e.", "mr.", "mrs.", "ms.", "dr.", "st.", "vs.", "no.", "approx."}

func endsWithAbbreviation(s string) bool {
	last := s[strings.LastIndexFunc(s, unicode.IsSpace)+1:]
	return slices.Contains(abbreviations, strings.ToLower(last))
}

// summaryLength is a sentence's cost: characters of Chinese text, words otherwise.
func summaryLength(s string, zh bool) int {
	if zh {
		return utf8.RuneCountInString(s)
	}
	return len(strings.Fields(s))
}

func mostlyChinese(in ports.SummaryInput) bool {
	han, letters := 0, 0
	count := func(s string) {
		for _, r := range s {
			switch {
			case unicode.Is(unicode.Han, r):
				han++
			case unicode.IsLetter(r):
				letters++
			}
		}
	}
	count(in.Previous)
	for _, m := range in.Messages {
		count(m.Content)
	}
	// A Chinese character carries about as much as a short word of letters.
	return han*3 >= letters
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// summaryLexicon is one language's evidence words by kind.
type summaryLexicon map[string][]string

// has reports whether low (lower case) holds a word of the kind: a whole word in
// English, a substring in Chinese.
func (l summaryLexicon) has(kind, low string, zh bool) bool {
	words := l[kind]
	if zh {
		return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(low, w) })
	}
	for _, tok := range strings.FieldsFunc(low, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' && r != '-' }) {
		if slices.Contains(words, tok) {
			return true
		}
	}
	return false
}

//go:embed summary/*.txt
var summaryFiles embed.FS

var (
	summaryWordsEN = loadSummaryWords("summary/en.txt")
	summaryWordsZH = loadSummaryWords("summary/zh.txt")
)

// loadSummaryWords reads "[kind]" sections of space-separated words; # starts a
// comment line.
func loadSummaryWords(name string) summaryLexicon {
	f, err := summaryFiles.Open(name)
	if err != nil {
		panic(err) // embedded at build time
	}
	defer f.Close()
	lex := summaryLexicon{}
	kind := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			kind = strings.Trim(line, "[]")
		default:
			lex[kind] = append(lex[kind], strings.Fields(strings.ToLower(line))...)
		}
	}
	return lex
}

// Package stance says how a sentence stands to what it says, offline, in English
// and Chinese: which of its words are only emphasis or mood ("seriously", "lol",
// "真的", "其实"), to be taken out before the extraction patterns read it, and
// which clauses state nothing true about the user — negation ("I'm not allergic
// to…", "我对花生不过敏"), hypotheticals ("if I were vegan", "要是我住在东京"), doubt
// ("I might be…", "我可能…") and other people's facts ("my friend is vegan",
// "我朋友对花生过敏").
//
// The rules are data: en.yaml and zh.yaml (embedded), each filler list and each
// veto with examples that prove it works and counter-examples that prove it does
// not overreach.
//
// Standard library and YAML only; no model, no I/O.
package stance

import (
	"embed"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"engram/domain/candidate"
)

//go:embed en.yaml zh.yaml
var files embed.FS

// Veto names why a clause states nothing true about the user.
type Veto string

const (
	Negated      Veto = "negated"
	Hypothetical Veto = "hypothetical"
	Doubtful     Veto = "doubtful"
	Reported     Veto = "reported"
)

// FillerExample is a text and what it reads as without its fillers.
type FillerExample struct {
	Text  string `yaml:"text"`
	Clean string `yaml:"clean"`
}

type fillerSpec struct {
	Anywhere    []string          `yaml:"anywhere"`
	ClauseStart []string          `yaml:"clause_start"`
	ClauseEnd   []string          `yaml:"clause_end"`
	Rewrite     map[string]string `yaml:"rewrite"`
	Examples    []FillerExample   `yaml:"examples"`
	Counter     []string          `yaml:"counter"`
}

type vetoSpec struct {
	Name     string   `yaml:"name"`
	Doc      string   `yaml:"doc"`
	Patterns []string `yaml:"patterns"`
	Unless   []string `yaml:"unless"`
	Examples []string `yaml:"examples"`
	Counter  []string `yaml:"counter"`
}

type fileSpec struct {
	Fillers fillerSpec `yaml:"fillers"`
	Vetoes  []vetoSpec `yaml:"vetoes"`
}

// Rule is one compiled veto of one language, with its examples for tests.
type Rule struct {
	Lang     string
	Name     Veto
	Doc      string
	Examples []string
	Counter  []string
	res      []*regexp.Regexp
	unless   []string
}

// Language is the compiled rules of one language.
type Language struct {
	Lang           string
	FillerExamples []FillerExample
	FillerCounter  []string
	Vetoes         []Rule

	zh bool
	// anywhere, start, end are the filler lists, lower-cased, longest first.
	anywhere, start, end []string
	rewrite              *strings.Replacer
}

// Stance holds both languages. It is safe for concurrent use.
type Stance struct {
	EN, ZH *Language
}

var (
	defaultOnce sync.Once
	defaultSet  *Stance
)

// Default is the embedded rules, compiled once. The files are part of the
// binary and proven by the package tests: a defect in them is a build defect.
func Default() *Stance {
	defaultOnce.Do(func() {
		s, err := Load()
		if err != nil {
			panic(err)
		}
		defaultSet = s
	})
	return defaultSet
}

// Load compiles the embedded rule files.
func Load() (*Stance, error) {
	en, err := loadLanguage("en")
	if err != nil {
		return nil, err
	}
	zh, err := loadLanguage("zh")
	if err != nil {
		return nil, err
	}
	return &Stance{EN: en, ZH: zh}, nil
}

func loadLanguage(lang string) (*Language, error) {
	raw, err := files.ReadFile(lang + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("stance %s: %w", lang, err)
	}
	var spec fileSpec
	if err := yaml.Unmarshal(raw, &spec); err != nil {
		return nil, fmt.Errorf("stance %s: %w", lang, err)
	}
	l := &Language{Lang: lang, zh: lang == "zh", FillerExamples: spec.Fillers.Examples, FillerCounter: spec.Fillers.Counter}
	f := spec.Fillers
	l.anywhere, l.start, l.end = longestFirst(f.Anywhere), longestFirst(f.ClauseStart), longestFirst(f.ClauseEnd)
	pairs := make([]string, 0, 2*len(f.Rewrite))
	froms := make([]string, 0, len(f.Rewrite))
	for from := range f.Rewrite {
		froms = append(froms, from)
	}
	slices.SortFunc(froms, func(a, b string) int { return len(b) - len(a) }) // longest first, stable output
	for _, from := range froms {
		pairs = append(pairs, from, f.Rewrite[from])
	}
	l.rewrite = strings.NewReplacer(pairs...)
	for _, v := range spec.Vetoes {
		r := Rule{Lang: lang, Name: Veto(v.Name), Doc: v.Doc, Examples: v.Examples, Counter: v.Counter, unless: v.Unless}
		switch r.Name {
		case Negated, Hypothetical, Doubtful, Reported:
		default:
			return nil, fmt.Errorf("stance %s: unknown veto %q", lang, v.Name)
		}
		for _, p := range v.Patterns {
			re, err := regexp.Compile(p)
			if err != nil {
				return nil, fmt.Errorf("stance %s veto %s: %w", lang, v.Name, err)
			}
			r.res = append(r.res, re)
		}
		l.Vetoes = append(l.Vetoes, r)
	}
	return l, nil
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

func longestFirst(list []string) []string {
	out := make([]string, len(list))
	for i, w := range list {
		out[i] = strings.ToLower(w)
	}
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// Clean takes the fillers out of text: what is left says the same fact, without
// the words that would otherwise be read as its object.
func (l *Language) Clean(text string) string {
	out, low := text, lower(text, l.zh)
	for _, list := range []struct {
		words []string
		at    position
	}{{l.anywhere, anywhere}, {l.start, clauseStart}, {l.end, clauseEnd}} {
		for _, w := range list.words {
			if strings.Contains(low, w) {
				out = l.remove(out, w, list.at)
				low = lower(out, l.zh)
			}
		}
	}
	out = l.rewrite.Replace(out)
	if out == text {
		return text
	}
	return tidy(out)
}

// lower lower-cases English (A-Z only, so offsets stay); Chinese has no case.
func lower(s string, zh bool) string {
	if zh {
		return s
	}
	return candidate.LowerASCII(s)
}

type position int

const (
	anywhere position = iota
	clauseStart
	clauseEnd
)

// remove takes every occurrence of word (a whole word in English) at its
// position out of text, with a comma on either side: the comma before it stays as
// the clause break ("peanuts, seriously, so…" → "peanuts, so…").
func (l *Language) remove(text, word string, at position) string {
	for from := 0; from < len(text); {
		low := lower(text, l.zh)
		k := strings.Index(low[from:], word)
		if k < 0 {
			return text
		}
		i, j := from+k, from+k+len(word)
		if !l.fits(text, i, j, at) {
			from = i + 1
			continue
		}
		lead := strings.TrimRight(text[:i], " \t")
		sep := " "
		if strings.HasSuffix(lead, ",") {
			lead, sep = strings.TrimSuffix(lead, ","), ","
		} else if l.zh {
			sep = ""
		}
		if sep == "," && !l.zh {
			sep = ", "
		}
		tail := strings.TrimLeft(text[j:], " \t")
		if r, ok := strings.CutPrefix(tail, ","); ok {
			tail = strings.TrimLeft(r, " \t")
		}
		text = lead + sep + tail
		from = len(lead)
	}
	return text
}

// fits reports whether text[i:j] stands where its list allows: as a whole
// English word, and at a clause's start or end when so listed.
func (l *Language) fits(text string, i, j int, at position) bool {
	if !l.zh && (i > 0 && isWordByte(text[i-1]) || j < len(text) && isWordByte(text[j])) {
		return false
	}
	switch at {
	case clauseStart:
		before := strings.TrimRight(text[:i], " \t")
		return before == "" || strings.ContainsAny(before[len(before)-1:], ",;:.!?") || strings.HasSuffix(before, "。")
	case clauseEnd:
		after := strings.TrimLeft(text[j:], " \t")
		return after == "" || strings.ContainsAny(after[:1], ",;:.!?") || strings.HasPrefix(after, "。")
	}
	return true
}

func isWordByte(b byte) bool { return isLetter(b) || b >= '0' && b <= '9' || b == '\'' }

var (
	spaces        = regexp.MustCompile(`[ \t]{2,}`)
	spaceBefore   = regexp.MustCompile(`\s+([,.!?;:。])`)
	commaBefore   = regexp.MustCompile(`,\s*([.!?;:。]|$)`)
	leadingBreaks = regexp.MustCompile(`^[\s,;:]+`)
	breakAfterEnd = regexp.MustCompile(`([.!?。])\s*,\s*`)
)

func tidy(s string) string {
	s = spaces.ReplaceAllString(s, " ")
	s = spaceBefore.ReplaceAllString(s, "$1")
	s = commaBefore.ReplaceAllString(s, "$1")
	s = breakAfterEnd.ReplaceAllString(s, "$1 ")
	s = leadingBreaks.ReplaceAllString(s, "")
	return strings.TrimSpace(s)
}

// Veto says why clause (lower-cased, its openers skipped) states nothing true
// about the user, or "" when it may.
func (l *Language) Veto(clause string) Veto {
	for _, r := range l.Vetoes {
		if r.Matches(clause) {
			return r.Name
		}
	}
	return ""
}

// Matches reports whether this veto applies to clause.
func (r Rule) Matches(clause string) bool {
	for _, u := range r.unless {
		if strings.Contains(clause, u) {
			return false
		}
	}
	for _, re := range r.res {
		if re.MatchString(clause) {
			return true
		}
	}
	return false
}

// For is the language of a text: Chinese when it holds a CJK character.
func (s *Stance) For(text string) *Language {
	for _, r := range text {
		if r >= 0x4E00 && r <= 0x9FFF || r >= 0x3400 && r <= 0x4DBF {
			return s.ZH
		}
	}
	return s.EN
}

// Clean takes the fillers of both languages out of text (a message may mix them).
func (s *Stance) Clean(text string) string {
	out := s.EN.Clean(text)
	if s.For(out) == s.ZH {
		out = s.ZH.Clean(out)
	}
	return out
}

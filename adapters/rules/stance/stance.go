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

	zh                   bool
	anywhere, start, end *regexp.Regexp
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
	if l.anywhere, err = l.words(f.Anywhere, "", ""); err != nil {
		return nil, fmt.Errorf("stance %s anywhere: %w", lang, err)
	}
	// A clause opens after the start of the text or a separator and closes before
	// one; the separators themselves stay.
	if l.start, err = l.words(f.ClauseStart, `(?:^|[,;:.!?。])\s*`, ""); err != nil {
		return nil, fmt.Errorf("stance %s clause_start: %w", lang, err)
	}
	if l.end, err = l.words(f.ClauseEnd, "", `\s*(?:$|[,;:.!?。])`); err != nil {
		return nil, fmt.Errorf("stance %s clause_end: %w", lang, err)
	}
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

// words compiles a word list into one alternation (longest first), English words
// whole and case-insensitive, with an optional comma before and after, so
// "peanuts, seriously." and "Seriously, I…" both lose theirs with the word.
func (l *Language) words(list []string, before, after string) (*regexp.Regexp, error) {
	if len(list) == 0 {
		return nil, nil
	}
	sorted := slices.Clone(list)
	slices.SortStableFunc(sorted, func(a, b string) int { return len(b) - len(a) })
	alts := make([]string, len(sorted))
	for i, w := range sorted {
		alts[i] = strings.ReplaceAll(regexp.QuoteMeta(w), " ", `\s+`)
		if !l.zh && isLetter(w[0]) {
			alts[i] = `\b` + alts[i]
		}
		if !l.zh && isLetter(w[len(w)-1]) {
			alts[i] += `\b` // "well," needs its comma: "Well water…" keeps its word
		}
	}
	alt := "(?:" + strings.Join(alts, "|") + ")"
	if l.zh {
		return regexp.Compile("(" + before + ")" + "(" + alt + `)+` + "(" + after + ")")
	}
	return regexp.Compile(`(?i)(` + before + `)(\s*,?\s*` + alt + `(?:\s*,)?)` + "(" + after + ")")
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// Clean takes the fillers out of text: what is left says the same fact, without
// the words that would otherwise be read as its object.
func (l *Language) Clean(text string) string {
	out := text
	for _, re := range []*regexp.Regexp{l.anywhere, l.start, l.end} {
		if re == nil {
			continue
		}
		out = re.ReplaceAllStringFunc(out, func(m string) string {
			sub := re.FindStringSubmatch(m)
			lead, word, tail := sub[1], sub[2], sub[3]
			sep := ""
			if strings.HasPrefix(strings.TrimSpace(word), ",") {
				sep = "," // "peanuts, seriously, so…": the clause break stays
			}
			if l.zh || sep != "" {
				return lead + sep + tail
			}
			return lead + " " + strings.TrimLeft(tail, " ")
		})
	}
	return tidy(l.rewrite.Replace(tidy(out)))
}

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

// Package gate is the extract gate: an LLM-free judgement, after the prefilter, of
// whether a user message may state something lasting about the user (a first-person
// fact, preference, plan, habit or standing rule). A message where nothing does is
// not sent to the model. It implements extraction.Gate.
//
// The rules are data: en.yaml and zh.yaml (embedded), word lists spliced into
// patterns, each rule with examples that must match it and counter-examples that
// must not. A message is split into clauses (punctuation, and conjunctions such as
// "but", "so", "因为", "所以"); a clause counts when a signal rule matches it and no
// veto rule does (a window such as "today", a hedge, a reaction to the
// conversation, another person as subject, a passing feeling). A signal needs the
// user as subject, in the clause or in an earlier one of the message ("…, so I
// stick to herbal tea"), except a standing rule for the assistant ("always cite
// your sources"). It errs on the side of passing: a missed message is a memory
// lost, a passed one only a call.
//
// A message that sets an identity slot (adapters/rules/slots) always passes.
//
// It imports the domain's text folding, ruledata and the slot rules only; no
// model, no I/O.
package gate

import (
	"embed"
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"engram/adapters/rules/ruledata"
	"engram/adapters/rules/slots"
	"engram/domain/candidate"
	"engram/domain/conversation"
)

// ReasonNothingAboutTheUser is the skip reason of a message the gate holds back.
const ReasonNothingAboutTheUser = conversation.SkipNothingAboutTheUser

// Kinds of rules.
const (
	KindSignal = "signal"
	KindVeto   = "veto"
)

//go:embed en.yaml zh.yaml
var files embed.FS

// Rule is one compiled rule of one language.
type Rule struct {
	Lang     string
	Name     string
	Kind     string
	Doc      string
	Examples []string
	Counter  []string
	anySelf  bool // a signal that needs no first person (a standing rule)
	strong   bool // a signal no veto holds back (a birthday told "today")
	res      []*regexp.Regexp
}

// Matches reports whether the rule matches a clause (normalised or not).
func (r Rule) Matches(clause string) bool { return r.matches(normalize(clause)) }

func (r Rule) matches(c string) bool {
	for _, re := range r.res {
		if re.MatchString(c) {
			return true
		}
	}
	return false
}

// Gate holds the compiled rules of both languages. It is safe for concurrent use.
type Gate struct {
	en, zh language
	slots  *slots.Recognizer
}

type language struct {
	name    string
	self    *regexp.Regexp // the user as subject
	signals []Rule
	vetoes  []Rule
}

// New compiles the embedded rules.
func New() (*Gate, error) {
	en, err := load("en")
	if err != nil {
		return nil, err
	}
	zh, err := load("zh")
	if err != nil {
		return nil, err
	}
	return &Gate{en: en, zh: zh, slots: slots.Default()}, nil
}

// Rules lists every rule, English first, in file order.
func (g *Gate) Rules() []Rule {
	var out []Rule
	for _, l := range []language{g.en, g.zh} {
		out = append(out, l.signals...)
		out = append(out, l.vetoes...)
	}
	return out
}

// Reason implements extraction.Gate: ReasonNothingAboutTheUser, or "" when some
// clause of text may state something lasting about the user.
func (g *Gate) Reason(text string) string {
	if g.Passes(text) {
		return ""
	}
	return ReasonNothingAboutTheUser
}

// Passes reports whether some clause of text counts, or text sets an identity
// slot of the profile (adapters/rules/slots: "I'll call you Jarvis", "use 🐱 as my
// emoji"), which reads like a request but is lasting.
func (g *Gate) Passes(text string) bool {
	if len(g.slots.Find(text)) > 0 {
		return true
	}
	selfSeen := false
	for _, c := range clauses(normalize(text)) {
		lang := &g.en
		if candidate.HasCJK(c.text) {
			lang = &g.zh
		}
		hasSelf := lang.self.MatchString(c.text)
		if !c.question && lang.counts(c.text, hasSelf || selfSeen) {
			return true
		}
		selfSeen = selfSeen || hasSelf
	}
	return false
}

// counts reports whether a signal rule matches the clause and no veto holds it
// back; aboutUser says the user is the clause's subject (or the message's, for a
// clause without one).
func (l *language) counts(clause string, aboutUser bool) bool {
	signalled, strong := false, false
	for _, r := range l.signals {
		if (aboutUser || r.anySelf) && r.matches(clause) {
			signalled, strong = true, strong || r.strong
		}
	}
	if !signalled || strong {
		return signalled
	}
	for _, r := range l.vetoes {
		if r.matches(clause) {
			return false
		}
	}
	return true
}

// file is the YAML form of a language's rules.
type file struct {
	Lists map[string][]string `yaml:"lists"`
	Rules []struct {
		Name     string   `yaml:"name"`
		Kind     string   `yaml:"kind"`
		Self     string   `yaml:"self"`
		Vetoes   string   `yaml:"vetoes"`
		Doc      string   `yaml:"doc"`
		Patterns []string `yaml:"patterns"`
		Examples []string `yaml:"examples"`
		Counter  []string `yaml:"counter"`
	} `yaml:"rules"`
}

func load(lang string) (language, error) {
	raw, err := files.ReadFile(lang + ".yaml")
	if err != nil {
		return language{}, fmt.Errorf("gate: %s rules: %w", lang, err)
	}
	var f file
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return language{}, fmt.Errorf("gate: %s.yaml: %w", lang, err)
	}
	fragments := ruledata.NewLists(f.Lists)
	l := language{name: lang}
	if l.self, err = compile(lang, "{self}", fragments); err != nil {
		return language{}, err
	}
	for _, spec := range f.Rules {
		r := Rule{Lang: lang, Name: spec.Name, Kind: spec.Kind, Doc: spec.Doc, Examples: spec.Examples,
			Counter: spec.Counter, anySelf: spec.Self == "any", strong: spec.Vetoes == "ignore"}
		if len(spec.Patterns) == 0 {
			return language{}, fmt.Errorf("gate: %s.yaml: rule %q has no pattern", lang, spec.Name)
		}
		for _, p := range spec.Patterns {
			re, err := compile(lang, p, fragments)
			if err != nil {
				return language{}, fmt.Errorf("gate: %s.yaml: rule %q: %w", lang, spec.Name, err)
			}
			r.res = append(r.res, re)
		}
		switch r.Kind {
		case KindSignal:
			l.signals = append(l.signals, r)
		case KindVeto:
			l.vetoes = append(l.vetoes, r)
		default:
			return language{}, fmt.Errorf("gate: %s.yaml: rule %q: kind %q is not signal or veto", lang, spec.Name, r.Kind)
		}
	}
	return l, nil
}

// compile splices the lists into a pattern; English patterns match between word
// boundaries.
func compile(lang, pattern string, fragments ruledata.Lists) (*regexp.Regexp, error) {
	expanded, err := fragments.Splice(pattern)
	if err != nil {
		return nil, err
	}
	if lang == "en" {
		expanded = `(?:^|[^\p{L}\p{N}'])(?:` + expanded + `)(?:$|[^\p{L}\p{N}'])`
	}
	return regexp.Compile(expanded)
}

// normalize folds full-width forms and curly quotes, lower-cases and trims.
func normalize(s string) string {
	return strings.TrimSpace(strings.ToLower(candidate.Fold(s)))
}

// clause is one piece of a message, and whether it asks.
type clause struct {
	text     string
	question bool
}

// conjunctions open a new clause inside a sentence; "and" does when the user
// speaks again after it ("…with friends and I love hiking").
var (
	conjunctions = regexp.MustCompile(`\s+(?:but|so|because|although|though|while|and then|which is why)\s+|但是|不过|可是|而且|所以|因为|然后|因此|\x00`)
	andSelf      = regexp.MustCompile(`\s+and\s+((?:i|i'm|i've|i'd|i'll|we|we're|we've|my|our)\s)`)
)

// clauses splits normalised text at sentence and clause punctuation and at
// conjunctions; a piece that ends a question, or opens like one, asks.
func clauses(s string) []clause {
	var out []clause
	start := 0
	emit := func(end int, question bool) {
		sentence := andSelf.ReplaceAllString(s[start:end], "\x00$1")
		for _, piece := range conjunctions.Split(sentence, -1) {
			if p := strings.TrimSpace(strings.Trim(piece, ` "'()[]-–—…~*`)); p != "" {
				out = append(out, clause{text: p, question: question || candidate.LooksLikeQuestion(p)})
			}
		}
	}
	for i, r := range s {
		switch r {
		case '.', '!', ';', ',', ':', '\n', '。', '！', '；', '，', '、', '：':
			emit(i, false)
			start = i + len(string(r))
		case '?', '？':
			emit(i, true)
			start = i + len(string(r))
		}
	}
	emit(len(s), false)
	return out
}

// Package slots recognises identity slots said in a conversation, offline: what
// the user wants to be called ("Please call me Captain from now on", "以后叫我小王吧"),
// the name they go by, the name they give the assistant ("I'll call you Jarvis",
// "你就叫小助手吧"), their emoji ("use 🐱 as my emoji"), and the language and tone of
// a standing reply rule ("From now on reply in Chinese"); "stop calling me Captain"
// clears the nickname. The rule extractor turns each match into an identity-slot
// candidate (candidate.NewSlotCandidate), which goes to the profile, never to
// long-term memory.
//
// The rules are data: en.yaml and zh.yaml (embedded), word lists spliced into
// patterns (ruledata), each rule with examples that must give their value and
// counter-examples that must give nothing ("they call me lazy", "call me
// tomorrow", "叫我起床"). A pattern is tried at the start of every clause of a
// sentence (its start and after each comma); questions give nothing.
//
// It imports the domain's text helpers and profile slots only; no model, no I/O.
package slots

import (
	"embed"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"engram/adapters/rules/ruledata"
	"engram/domain/candidate"
	"engram/domain/profile"
)

//go:embed en.yaml zh.yaml
var files embed.FS

// Match is one slot said in a text: its value as the user said it ("Captain",
// "中文"), or "" when the slot is cleared.
type Match struct {
	Slot  profile.Slot
	Value string
	Rule  string // the rule's name, for traces and tests
}

// Example is a text a rule must recognise, with the value it gives ("" for a clear).
type Example struct {
	Text  string `yaml:"text"`
	Value string `yaml:"value"`
}

// Rule is one compiled rule of one language.
type Rule struct {
	Lang     string
	Name     string
	Doc      string
	Slot     profile.Slot
	Clear    bool
	Examples []Example
	Counter  []string
	anchors  []string // lower-case; the rule is tried only where one occurs
	res      []*regexp.Regexp
	values   *values
}

// values are a language's rules for what may be a value.
type values struct {
	Ends     []string `yaml:"ends"`
	NotValue []string `yaml:"not_value"`
	MaxWords int      `yaml:"max_words"`
	MaxChars int      `yaml:"max_chars"`
	zh       bool
	notValue map[string]bool
}

// Recognizer holds the compiled rules of both languages. It is safe for
// concurrent use.
type Recognizer struct {
	en, zh []Rule
}

// New compiles the embedded rules.
func New() (*Recognizer, error) {
	r := &Recognizer{}
	for lang, rules := range map[string]*[]Rule{"en": &r.en, "zh": &r.zh} {
		loaded, err := load(lang)
		if err != nil {
			return nil, err
		}
		*rules = loaded
	}
	return r, nil
}

// Default is the recognizer of the embedded rules, compiled once. The rules are
// part of the binary and their tests compile them, so a failure here is a build
// defect: it panics, as regexp.MustCompile does.
var Default = sync.OnceValue(func() *Recognizer {
	r, err := New()
	if err != nil {
		panic(err)
	}
	return r
})

// Rules lists every rule, English first, in file order.
func (r *Recognizer) Rules() []Rule { return append(append([]Rule(nil), r.en...), r.zh...) }

// Find returns the slots said in text, in order: at each clause start of each
// sentence, the first rule (in file order) that gives a value.
func (r *Recognizer) Find(text string) []Match {
	var out []Match
	for _, sentence := range candidate.Sentences(candidate.Fold(strings.TrimSpace(text))) {
		sentence = strings.TrimRight(sentence, ".!?;。！？；… ")
		all := r.en
		if candidate.HasCJK(sentence) {
			all = r.zh
		}
		low := strings.ToLower(sentence)
		var rules []Rule
		for _, rule := range all {
			if rule.anchored(low) {
				rules = append(rules, rule)
			}
		}
		if len(rules) == 0 {
			continue
		}
		consumed := 0 // a clause inside the last match ("From now on, call me Sam") is not read again
		for _, start := range clauseStarts(sentence) {
			if start < consumed {
				continue
			}
			clause := strings.TrimLeft(sentence[start:], " ")
			if candidate.LooksLikeQuestion(firstClause(clause)) {
				continue
			}
			for _, rule := range rules {
				if m, n, ok := rule.find(clause); ok {
					out = append(out, m)
					consumed = start + len(sentence[start:]) - len(clause) + n
					break
				}
			}
		}
	}
	return out
}

// Find applies the rule alone to a clause (its examples and counter-examples are
// such clauses).
func (rule Rule) Find(clause string) (Match, bool) {
	clause = strings.TrimRight(strings.TrimSpace(candidate.Fold(clause)), ".!?;。！？；… ")
	if !rule.anchored(strings.ToLower(clause)) {
		return Match{}, false
	}
	m, _, ok := rule.find(clause)
	return m, ok
}

// anchored reports whether one of the rule's anchors occurs in low.
func (rule Rule) anchored(low string) bool {
	for _, a := range rule.anchors {
		if strings.Contains(low, a) {
			return true
		}
	}
	return false
}

// find applies the rule at the start of clause: the match and how many bytes of
// clause it took.
func (rule Rule) find(clause string) (Match, int, bool) {
	for _, re := range rule.res {
		loc := re.FindStringSubmatchIndex(clause)
		if loc == nil {
			continue
		}
		i := re.SubexpIndex("value")
		if i < 0 { // a clear that names no value: "stop calling me that"
			return Match{Slot: rule.Slot, Rule: rule.Name}, loc[1], true
		}
		v, ok := rule.values.accept(clause[loc[2*i]:loc[2*i+1]])
		if !ok || !rule.Clear && !valid(rule.Slot, v) {
			continue
		}
		if rule.Clear {
			v = ""
		}
		return Match{Slot: rule.Slot, Value: v, Rule: rule.Name}, loc[1], true
	}
	return Match{}, 0, false
}

// valid refuses a value the slot cannot hold, so the next rule may read the
// clause: "以后说话正式一点" names no language, it sets the tone.
func valid(slot profile.Slot, value string) bool {
	if slot != profile.SlotLanguage {
		return true
	}
	_, err := profile.LanguageTag(value)
	return err == nil
}

// accept cuts a raw value at its first end phrase and says whether what is left
// may be a value.
func (v *values) accept(raw string) (string, bool) {
	value := strings.TrimSpace(raw)
	if v.zh {
		for _, end := range v.Ends {
			if i := strings.Index(value, end); i >= 0 {
				value = value[:i]
			}
		}
	} else {
		words := strings.Fields(value)
		for i := range words {
			if v.isEnd(words[i:]) {
				words = words[:i]
				break
			}
		}
		value = strings.Join(words, " ")
	}
	value = strings.Trim(value, " ,'\"")
	if value == "" {
		return "", false
	}
	if v.zh {
		for _, nv := range v.NotValue {
			if strings.HasPrefix(value, nv) {
				return "", false
			}
		}
		return value, utf8.RuneCountInString(value) <= v.MaxChars
	}
	words := strings.Fields(value)
	if v.notValue[strings.ToLower(words[0])] {
		return "", false
	}
	return value, len(words) <= v.MaxWords
}

// isEnd reports whether words open with one of the end phrases.
func (v *values) isEnd(words []string) bool {
	for _, end := range v.Ends {
		ew := strings.Fields(end)
		if len(ew) > len(words) {
			continue
		}
		match := true
		for j := range ew {
			if !strings.EqualFold(words[j], ew[j]) {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// clauseStarts are the offsets a rule is tried at: the sentence's start and after
// each comma.
func clauseStarts(sentence string) []int {
	starts := []int{0}
	for i := 0; i < len(sentence); i++ {
		if sentence[i] == ',' && i+1 < len(sentence) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// firstClause is text up to its first comma.
func firstClause(text string) string {
	if i := strings.IndexByte(text, ','); i >= 0 {
		return text[:i]
	}
	return text
}

// file is the YAML form of a language's rules.
type file struct {
	Lists  map[string][]string `yaml:"lists"`
	Values values              `yaml:"values"`
	Rules  []ruleSpec          `yaml:"rules"`
}

// ruleSpec is one rule as the file writes it.
type ruleSpec struct {
	Name     string    `yaml:"name"`
	Slot     string    `yaml:"slot"`
	Anchors  []string  `yaml:"anchors"`
	Clear    bool      `yaml:"clear"`
	Doc      string    `yaml:"doc"`
	Patterns []string  `yaml:"patterns"`
	Examples []Example `yaml:"examples"`
	Counter  []string  `yaml:"counter"`
}

func load(lang string) ([]Rule, error) {
	f, err := decode(lang)
	if err != nil {
		return nil, err
	}
	vals := f.Values
	if err := vals.prepare(lang); err != nil {
		return nil, err
	}
	lists := ruledata.NewLists(f.Lists)
	var rules []Rule
	for _, spec := range f.Rules {
		r, err := spec.compile(lang, f.Lists, lists, &vals)
		if err != nil {
			return nil, err
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// decode reads a language's file strictly: an unknown field is a typo, not a rule
// to ignore.
func decode(lang string) (file, error) {
	var f file
	raw, err := files.ReadFile(lang + ".yaml")
	if err != nil {
		return f, fmt.Errorf("slots: %s rules: %w", lang, err)
	}
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return f, fmt.Errorf("slots: %s.yaml: %w", lang, err)
	}
	return f, nil
}

// prepare indexes the words that are never a value and checks the length limit of
// the language (words for English, characters for Chinese).
func (v *values) prepare(lang string) error {
	v.zh = lang == "zh"
	v.notValue = make(map[string]bool, len(v.NotValue))
	for _, w := range v.NotValue {
		v.notValue[strings.ToLower(w)] = true
	}
	if v.zh && v.MaxChars <= 0 || !v.zh && v.MaxWords <= 0 {
		return fmt.Errorf("slots: %s.yaml: values need a positive max_words (en) or max_chars (zh)", lang)
	}
	return nil
}

// compile checks a rule and compiles its patterns, anchored at the clause start.
func (spec ruleSpec) compile(lang string, rawLists map[string][]string, lists ruledata.Lists, vals *values) (Rule, error) {
	fail := func(err error) (Rule, error) {
		return Rule{}, fmt.Errorf("slots: %s.yaml: rule %q: %w", lang, spec.Name, err)
	}
	slot, err := profile.ParseSlot(spec.Slot)
	if err != nil {
		return fail(err)
	}
	if len(spec.Patterns) == 0 || len(spec.Examples) == 0 || len(spec.Anchors) == 0 {
		return Rule{}, fmt.Errorf("slots: %s.yaml: rule %q needs patterns, anchors and examples", lang, spec.Name)
	}
	anchors, err := expandAnchors(spec.Anchors, rawLists)
	if err != nil {
		return fail(err)
	}
	r := Rule{Lang: lang, Name: spec.Name, Doc: spec.Doc, Slot: slot, Clear: spec.Clear,
		Examples: spec.Examples, Counter: spec.Counter, anchors: anchors, values: vals}
	for _, p := range spec.Patterns {
		re, err := compilePattern(p, lists)
		if err != nil {
			return fail(err)
		}
		if !r.Clear && re.SubexpIndex("value") < 0 {
			return fail(fmt.Errorf("pattern %q has no (?P<value>…) group", p))
		}
		r.res = append(r.res, re)
	}
	return r, nil
}

// compilePattern splices the lists into a pattern and anchors it, case-insensitive.
func compilePattern(p string, lists ruledata.Lists) (*regexp.Regexp, error) {
	expanded, err := lists.Splice(p)
	if err != nil {
		return nil, err
	}
	return regexp.Compile(`(?i)^(?:` + expanded + `)`)
}

// expandAnchors lower-cases anchors and replaces each "{list}" with the list's
// entries.
func expandAnchors(anchors []string, lists map[string][]string) ([]string, error) {
	var out []string
	for _, a := range anchors {
		if name, ok := strings.CutPrefix(a, "{"); ok && strings.HasSuffix(name, "}") {
			words, known := lists[strings.TrimSuffix(name, "}")]
			if !known {
				return nil, fmt.Errorf("anchor %q names no list", a)
			}
			for _, w := range words {
				out = append(out, strings.ToLower(w))
			}
			continue
		}
		out = append(out, strings.ToLower(a))
	}
	return out, nil
}

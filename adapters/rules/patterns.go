package rules

import (
	"embed"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

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
	// first holds the runes a match can start with (nil: any), set at load.
	first map[rune]bool
	// examples are clauses the pattern must be the first to fit; counter are
	// clauses its expression matches where it must not fit (its key rule or builder
	// refuses the object). The package's tests check both.
	examples, counter []string
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

// The patterns are data: patterns/en.yaml and patterns/zh.yaml, one list per script
// (a clause is only tried against the patterns of its own script), most specific
// first. A pattern names its key rule, content, trim and custom builder; the tables
// below give each name its Go behaviour, so a file can only say what the engine
// knows, and a typo fails the load (and the package's tests), not a user's message.
//
//	name        what traces and tests call it
//	kind        object (default: head + object, one candidate per item), whole
//	            (the clause is the statement), remember, rule, reminder
//	custom      a builder of its own drafts (customRules); implies kind custom
//	type, confidence, importance   of the drafts
//	key         a fixed key ("diet"), a key with the object's slug ("allergy.{slug}"),
//	            or a rule from keyRules ("relation(likes)", "habit()")
//	group       the submatch that holds the object (0: what follows the match)
//	content     a template ({item}, {object}: the item with the user's pronouns
//	            swapped, {1}…: submatches) or a rule from contentRules ("head()")
//	trim        a cleaner of the object from trimRules
//	flags       see patternFlags
//	re          the expression, matched at the start of a lower-cased clause;
//	            {fragment} splices a fragment (the file's own, or builtinFragments)
//	examples    clauses the pattern is the first to fit
//	counter     clauses its expression matches where it must not fit

//go:embed patterns/en.yaml patterns/zh.yaml
var patternFiles embed.FS

// patternsEN and patternsZH are the compiled patterns of each script, in file order.
var patternsEN, patternsZH = mustLoadPatterns()

func mustLoadPatterns() ([]pattern, []pattern) {
	en, err := loadPatterns("en")
	if err != nil {
		panic(err) // the files are part of the binary and its tests load them: a build defect
	}
	zh, err := loadPatterns("zh")
	if err != nil {
		panic(err)
	}
	return en, zh
}

// patternsFor is the list to try on a clause of the script.
func patternsFor(zh bool) []pattern {
	if zh {
		return patternsZH
	}
	return patternsEN
}

type patternFile struct {
	Fragments map[string]string `yaml:"fragments"`
	Patterns  []patternSpec     `yaml:"patterns"`
}

// patternSpec is one pattern as the file writes it.
type patternSpec struct {
	Name       string   `yaml:"name"`
	Kind       string   `yaml:"kind"`
	Custom     string   `yaml:"custom"`
	Type       string   `yaml:"type"`
	Confidence float64  `yaml:"confidence"`
	Importance int      `yaml:"importance"`
	Key        string   `yaml:"key"`
	Group      int      `yaml:"group"`
	Content    string   `yaml:"content"`
	Trim       string   `yaml:"trim"`
	Flags      []string `yaml:"flags"`
	Re         string   `yaml:"re"`
	Examples   []string `yaml:"examples"`
	Counter    []string `yaml:"counter"`
}

func loadPatterns(lang string) ([]pattern, error) {
	raw, err := patternFiles.ReadFile("patterns/" + lang + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("rules: %s patterns: %w", lang, err)
	}
	var f patternFile
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("rules: patterns/%s.yaml: %w", lang, err)
	}
	fragments := map[string]string{}
	for name, v := range builtinFragments[lang] {
		fragments[name] = v
	}
	for name, v := range f.Fragments {
		fragments[name] = v
	}
	out := make([]pattern, 0, len(f.Patterns))
	for _, spec := range f.Patterns {
		p, err := spec.compile(fragments)
		if err == nil && hasCJK(p.re.String()) != (lang == "zh") {
			err = fmt.Errorf("the expression is not in the file's script")
		}
		if err != nil {
			return nil, fmt.Errorf("rules: patterns/%s.yaml: pattern %q: %w", lang, spec.Name, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// builtinFragments are alternations built from the word tables in Go (they are
// also looked up by the key rules), longest first.
var builtinFragments = map[string]map[string]string{
	"en": {"relative": relEN, "health_noun": strings.Trim(healthNounsEN, "|"), "health_adjective": strings.Trim(healthAdjsEN, "|")},
	"zh": {"relative": relZH, "breed": breedsZH, "health_word": strings.Trim(healthWordsZH, "|")},
}

// compile turns a spec into a pattern, each name looked up in its table.
func (spec patternSpec) compile(fragments map[string]string) (pattern, error) {
	p := pattern{name: spec.Name, conf: spec.Confidence, imp: spec.Importance, group: spec.Group,
		examples: spec.Examples, counter: spec.Counter}
	steps := []func(*pattern) error{
		spec.compileKind, spec.compileType, spec.compileKey, spec.compileContent, spec.compileTrim, spec.compileFlags,
		func(p *pattern) error { return spec.compileRe(p, fragments) },
	}
	for _, step := range steps {
		if err := step(&p); err != nil {
			return pattern{}, err
		}
	}
	return p, nil
}

var kinds = map[string]kind{"": kindObject, "object": kindObject, "whole": kindWhole, "remember": kindRemember,
	"rule": kindRule, "reminder": kindReminder}

func (spec patternSpec) compileKind(p *pattern) error {
	if spec.Custom != "" {
		custom, ok := customRules[spec.Custom]
		if !ok || spec.Kind != "" {
			return fmt.Errorf("custom %q: no such builder, or a kind besides it", spec.Custom)
		}
		p.kind, p.custom = kindCustom, custom
		return nil
	}
	k, ok := kinds[spec.Kind]
	if !ok {
		return fmt.Errorf("unknown kind %q", spec.Kind)
	}
	p.kind = k
	return nil
}

func (spec patternSpec) compileType(p *pattern) error {
	if spec.Type == "" {
		return nil // remember and custom patterns build drafts of their own types
	}
	t, err := memory.ParseType(spec.Type)
	if err != nil {
		return fmt.Errorf("type %q: %w", spec.Type, err)
	}
	p.typ = t
	return nil
}

// ruleCall splits "name(arg)"; ok=false when s is no call.
func ruleCall(s string) (name, arg string, ok bool) {
	name, rest, found := strings.Cut(s, "(")
	if !found || !strings.HasSuffix(rest, ")") {
		return "", "", false
	}
	return name, strings.TrimSuffix(rest, ")"), true
}

func (spec patternSpec) compileKey(p *pattern) error {
	name, arg, call := ruleCall(spec.Key)
	switch {
	case call:
		rule, ok := keyRules[name]
		if !ok {
			return fmt.Errorf("key %q: no such rule", spec.Key)
		}
		p.key = rule(arg)
	case strings.Contains(spec.Key, "{slug}"):
		p.key = slugKey(spec.Key)
	case spec.Key != "":
		p.key = fixedKey(spec.Key)
	case p.kind == kindObject || p.kind == kindWhole:
		return fmt.Errorf("an %s pattern needs a key", spec.kindName())
	}
	return nil
}

func (spec patternSpec) kindName() string {
	if spec.Kind == "" {
		return "object"
	}
	return spec.Kind
}

func fixedKey(k string) keyFunc {
	return func(*match) (string, bool) { return k, true }
}

// slugKey puts the object's slug into the key ("allergy.{slug}" → allergy.peanuts).
func slugKey(template string) keyFunc {
	return func(m *match) (string, bool) { return strings.ReplaceAll(template, "{slug}", slugOf(m.item)), true }
}

// keyFunc names the memory for one object item; ok=false rejects the item.
type keyFunc = func(m *match) (key string, ok bool)

// keyRules are the key rules a pattern may name, each given its argument.
var keyRules = map[string]func(arg string) keyFunc{
	"relation": relationKey,
	"name":     plain(nameValue),
	"home":     plain(homeKey), "moved_en": plain(movedKeyEN), "birth": plain(birthKey), "hometown_zh": plain(hometownZH),
	"profession_en": plain(professionEN), "work_place_en": plain(workPlaceEN), "work_place_zh": plain(workPlaceZH),
	"work_in_en": plain(workInEN), "project_en": plain(projectEN), "project_zh": plain(projectZH), "business_en": plain(businessEN),
	"pet_or_family": plain(petOrFamily), "pet_only": plain(petOnly), "pet_zh": plain(petZH), "pet_named_zh": plain(petNamedZH),
	"relative_zh": plain(relativeZH), "favorite": plain(favoriteKey), "prefers": plain(prefersKey), "habit": plain(habitKey),
	"learning_en": plain(learningEN), "learning_zh": plain(learningZH), "language_zh": plain(languageZH),
	"greeted_name_zh": plain(greetedNameZH), "health_en": plain(healthKeyEN), "health_zh": plain(healthKeyZH),
}

func plain(k keyFunc) func(string) keyFunc { return func(string) keyFunc { return k } }

// contentRules build contents a template cannot.
var contentRules = map[string]func(m *match) string{
	// the matched head itself, in the third person ("我今年三十岁" → "用户今年三十岁。")
	"head": func(m *match) string { return sentenceZH(thirdPersonZH(m.head)) },
	// "I'm 30" → "User is 30 years old."; "I'm 30 years old" keeps its unit
	"age": func(m *match) string {
		if strings.Contains(m.item, "year") || strings.Contains(m.item, "yrs") {
			return "User is " + m.item + "."
		}
		return "User is " + m.item + " years old."
	},
}

// templateRef is a {field} in a content template; fragmentRef a {fragment} in an
// expression (letters only, so a repetition such as {1,4} is none).
var (
	templateRef = regexp.MustCompile(`\{([a-z0-9_]+)\}`)
	fragmentRef = regexp.MustCompile(`\{([a-z_]+)\}`)
)

func (spec patternSpec) compileContent(p *pattern) error {
	if spec.Content == "" {
		return nil
	}
	if name, _, call := ruleCall(spec.Content); call {
		build, ok := contentRules[name]
		if !ok {
			return fmt.Errorf("content %q: no such rule", spec.Content)
		}
		p.content = build
		return nil
	}
	for _, ref := range templateRef.FindAllStringSubmatch(spec.Content, -1) {
		if _, err := strconv.Atoi(ref[1]); err != nil && ref[1] != "item" && ref[1] != "object" {
			return fmt.Errorf("content %q: unknown field {%s}", spec.Content, ref[1])
		}
	}
	template := spec.Content
	p.content = func(m *match) string { return fillContent(template, m) }
	return nil
}

// fillContent fills a template from the match.
func fillContent(template string, m *match) string {
	return templateRef.ReplaceAllStringFunc(template, func(ref string) string {
		switch name := ref[1 : len(ref)-1]; name {
		case "item":
			return m.item
		case "object":
			return objectEN(m.item)
		default:
			i, _ := strconv.Atoi(name)
			return m.group(i)
		}
	})
}

// customFunc builds the drafts of a custom pattern from the match; it returns how
// much of rest it consumed, ok=false when the pattern does not fit after all.
type customFunc = func(m *match, rest string, loc []int) ([]draft, int, bool)

// customRules are the builders of patterns whose drafts no template can say (a
// role and a workplace, a relative's name and relation).
var customRules = map[string]customFunc{"moved_zh": movedZH, "i_am_role_en": iAmRoleEN, "work_as_en": workAsEN, "teach_en": teachEN, "role_zh": roleZH, "role_at_zh": roleAtZH, "relative_named_en": relativeNamedEN, "relative_appos_en": relativeApposEN, "relative_age_en": relativeAgeEN, "relative_age_zh": relativeAgeZH, "our_relatives_en": ourRelativesEN, "our_relatives_zh": ourRelativesZH, "allergy_have_en": allergyHaveEN, "all_replies_en": allRepliesEN, "relative_and_i_en": relativeAndIEN, "relative_named_zh": relativeNamedZH, "relative_and_zh": relativeAndZH, "pet_named_en": petNamedEN, "training_goal_en": trainingGoalEN, "training_goal_zh": trainingGoalZH, "saving_goal": savingGoal, "business_zh": businessZH, "marital_en": maritalEN, "favorite_reversed_en": favoriteReversedEN, "hi_i_am_en": hiIAmEN}

var trimRules = map[string]func(string) string{"time_en": trimTimeEN, "home_en": trimHomeEN, "moved_en": trimMovedEN}

func (spec patternSpec) compileTrim(p *pattern) error {
	if spec.Trim == "" {
		return nil
	}
	trim, ok := trimRules[spec.Trim]
	if !ok {
		return fmt.Errorf("unknown trim %q", spec.Trim)
	}
	p.trim = trim
	return nil
}

// patternFlags set the pattern's switches (see pattern for what each means).
var patternFlags = map[string]func(p *pattern){
	"sentence_start": func(p *pattern) { p.sentenceStart = true },
	"after_greeting": func(p *pattern) { p.afterGreeting = true },
	"delete":         func(p *pattern) { p.op = candidate.OpDelete },
	"whole_object":   func(p *pattern) { p.wholeObject = true },
	"split_and":      func(p *pattern) { p.splitAnd = true },
	"place":          func(p *pattern) { p.place = true },
	"no_synthetic":   func(p *pattern) { p.noSynthetic = true },
	"no_carry":       func(p *pattern) { p.noCarry = true },
	"relative_carry": func(p *pattern) { p.relativeCarry = true },
	"conditional":    func(p *pattern) { p.conditional = true },
}

func (spec patternSpec) compileFlags(p *pattern) error {
	for _, f := range spec.Flags {
		set, ok := patternFlags[f]
		if !ok {
			return fmt.Errorf("unknown flag %q", f)
		}
		set(p)
	}
	return nil
}

// compileRe splices the fragments into the expression and anchors it at the clause
// start.
func (spec patternSpec) compileRe(p *pattern, fragments map[string]string) error {
	var missing []string
	expr := fragmentRef.ReplaceAllStringFunc(spec.Re, func(ref string) string {
		f, ok := fragments[ref[1:len(ref)-1]]
		if !ok {
			missing = append(missing, ref)
		}
		return f
	})
	if len(missing) > 0 || spec.Re == "" {
		return fmt.Errorf("expression %q is empty or names unknown fragments %v", spec.Re, missing)
	}
	re, err := regexp.Compile(`^(?:` + expr + `)`)
	if err != nil {
		return err
	}
	p.re, p.first = re, firstRunes(re.String())
	return nil
}

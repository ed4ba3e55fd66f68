package rules

import (
	"strings"
	"testing"

	"engram/adapters/rules/stance"
	"engram/domain/candidate"
)

func TestPatterns_loadEveryFileWithUniqueNames(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{"en", "zh"} {
		ps, err := loadPatterns(lang)
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) < 40 {
			t.Errorf("%s: %d patterns, want the full list", lang, len(ps))
		}
		seen := map[string]bool{}
		for _, p := range ps {
			if seen[p.name] {
				t.Errorf("%s: pattern %q twice", lang, p.name)
			}
			seen[p.name] = true
			if hasCJK(p.re.String()) != (lang == "zh") {
				t.Errorf("%s: pattern %q is in the other script", lang, p.name)
			}
		}
	}
}

func TestPatternSpec_compileRefusesWhatTheEngineDoesNotKnow(t *testing.T) {
	t.Parallel()
	fragments := map[string]string{"relative": "wife|husband"}
	valid := patternSpec{Name: "ok", Type: "fact", Confidence: 0.8, Importance: 3, Key: "relation(likes)", Re: `i like\s+`}
	cases := []struct {
		name  string
		edit  func(s *patternSpec)
		error string
	}{
		{"unknown key rule", func(s *patternSpec) { s.Key = "nosuch()" }, `key "nosuch()": no such rule`},
		{"object pattern without a key", func(s *patternSpec) { s.Key = "" }, "needs a key"},
		{"unknown custom builder", func(s *patternSpec) { s.Custom = "nosuch" }, `custom "nosuch"`},
		{"custom with a kind", func(s *patternSpec) { s.Custom, s.Kind = "hi_i_am_en", "whole" }, "a kind besides it"},
		{"unknown kind", func(s *patternSpec) { s.Kind = "sometimes" }, `unknown kind "sometimes"`},
		{"unknown type", func(s *patternSpec) { s.Type = "mood" }, "mood"},
		{"unknown content rule", func(s *patternSpec) { s.Content = "nosuch()" }, `content "nosuch()": no such rule`},
		{"unknown template field", func(s *patternSpec) { s.Content = "User has {thing}." }, "unknown field {thing}"},
		{"unknown trim", func(s *patternSpec) { s.Trim = "nosuch" }, `unknown trim "nosuch"`},
		{"unknown flag", func(s *patternSpec) { s.Flags = []string{"loud"} }, `unknown flag "loud"`},
		{"unknown fragment", func(s *patternSpec) { s.Re = `my {pet} is\s+` }, "unknown fragments [{pet}]"},
		{"empty expression", func(s *patternSpec) { s.Re = "" }, "is empty"},
		{"bad expression", func(s *patternSpec) { s.Re = `i like (` }, "missing closing )"},
	}
	if _, err := valid.compile(fragments); err != nil {
		t.Fatalf("the valid spec: %v", err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			spec := valid
			tc.edit(&spec)
			_, err := spec.compile(fragments)
			if err == nil || !strings.Contains(err.Error(), tc.error) {
				t.Fatalf("error %v, want one containing %q", err, tc.error)
			}
		})
	}
}

func TestPatternSpec_compileFillsTemplatesAndFragments(t *testing.T) {
	t.Parallel()
	spec := patternSpec{Name: "t", Type: "fact", Key: "allergy.{slug}", Group: 2, Content: "User's {1} is {item}; {object}.",
		Re: `my ({relative}) is (.+)`, Flags: []string{"no_carry", "delete"}}
	p, err := spec.compile(map[string]string{"relative": "wife|husband"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.re.String(), `^(?:my (wife|husband) is (.+))`; got != want {
		t.Errorf("expression %s, want %s", got, want)
	}
	if !p.noCarry || p.op != candidate.OpDelete {
		t.Errorf("flags not set: noCarry=%v op=%q", p.noCarry, p.op)
	}
	m := &match{groups: []string{"my wife is my friend", "wife", "my friend"}, item: "my friend"}
	if got, want := p.content(m), "User's wife is my friend; their friend."; got != want {
		t.Errorf("content %q, want %q", got, want)
	}
	if key, ok := p.key(m); !ok || key != "allergy.friend" {
		t.Errorf("key %q %v, want allergy.friend", key, ok)
	}
}

// firstFitOf is the name of the first pattern that fits text as a clause (after its
// openers, in a greeted sentence so greeting-only patterns are tried too).
func firstFitOf(text string) (name string, matches func(*pattern) bool) {
	s := stance.Default().Clean(candidate.Fold(strings.TrimSpace(text)))
	low := candidate.LowerASCII(s)
	i, _ := skipOpeners(low, 0)
	if p, _, _ := firstFit(s[i:], low[i:], clauseAt{greeted: true}); p != nil {
		name = p.name
	}
	return name, func(p *pattern) bool { return p.re.MatchString(low[i:]) }
}

func TestPatterns_examplesFitTheirPatternFirstAndCounterExamplesDoNot(t *testing.T) {
	t.Parallel()
	for _, ps := range [][]pattern{patternsEN, patternsZH} {
		for i := range ps {
			p := &ps[i]
			if len(p.examples) == 0 {
				t.Errorf("pattern %q has no examples", p.name)
			}
			for _, ex := range p.examples {
				if got, _ := firstFitOf(ex); got != p.name {
					t.Errorf("pattern %q: example %q is fitted by %q", p.name, ex, got)
				}
			}
			for _, ce := range p.counter {
				got, matches := firstFitOf(ce)
				if !matches(p) {
					t.Errorf("pattern %q: counter-example %q does not match the expression, so it proves nothing", p.name, ce)
				}
				if got == p.name {
					t.Errorf("pattern %q: counter-example %q fits it", p.name, ce)
				}
			}
		}
	}
}

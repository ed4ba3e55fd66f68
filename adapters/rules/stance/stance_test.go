package stance_test

import (
	"strings"
	"testing"

	"engram/adapters/rules/stance"
)

func TestFillers_examplesCleanAndCountersStay(t *testing.T) {
	t.Parallel()
	s := stance.Default()
	for _, l := range []*stance.Language{s.EN, s.ZH} {
		if len(l.FillerExamples) == 0 || len(l.FillerCounter) == 0 {
			t.Fatalf("%s: fillers need examples and counter-examples", l.Lang)
		}
		for _, x := range l.FillerExamples {
			if got := l.Clean(x.Text); got != x.Clean {
				t.Errorf("%s: Clean(%q) = %q, want %q", l.Lang, x.Text, got, x.Clean)
			}
		}
		for _, c := range l.FillerCounter {
			if got := l.Clean(c); got != c {
				t.Errorf("%s: counter-example %q was changed to %q", l.Lang, c, got)
			}
		}
	}
}

func TestVetoes_eachRuleFiresOnItsExamplesAndNoRuleOnItsCounters(t *testing.T) {
	t.Parallel()
	s := stance.Default()
	for _, l := range []*stance.Language{s.EN, s.ZH} {
		if len(l.Vetoes) != 4 {
			t.Errorf("%s: %d vetoes, want negated, hypothetical, doubtful and reported", l.Lang, len(l.Vetoes))
		}
		for _, r := range l.Vetoes {
			if len(r.Examples) == 0 || len(r.Counter) == 0 {
				t.Errorf("%s %s: needs examples and counter-examples", l.Lang, r.Name)
			}
			for _, x := range r.Examples {
				if !r.Matches(strings.ToLower(x)) {
					t.Errorf("%s %s: example %q is not vetoed", l.Lang, r.Name, x)
				}
			}
			for _, c := range r.Counter {
				if v := l.Veto(strings.ToLower(c)); v != "" {
					t.Errorf("%s %s: counter-example %q is vetoed as %s", l.Lang, r.Name, c, v)
				}
			}
		}
	}
}

func TestClean_mixedAndPlainTextsKeepTheirFact(t *testing.T) {
	t.Parallel()
	s := stance.Default()
	cases := []struct{ in, want string }{
		{"I am allergic to peanuts, seriously.", "I am allergic to peanuts."},
		{"I live in Berlin.", "I live in Berlin."},
		{"我其实住在上海。", "我住在上海。"},
		{"我对花生过敏,说真的。", "我对花生过敏。"},
		{"", ""},
	}
	for _, c := range cases {
		if got := s.Clean(c.in); got != c.want {
			t.Errorf("Clean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

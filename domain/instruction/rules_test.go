package instruction

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Every rule proves itself: each example fires that rule, each counter-example fires
// no rule at all.
func TestRules_examplesFireAndCounterExamplesDoNot(t *testing.T) {
	t.Parallel()
	for i := range rules {
		r := &rules[i]
		t.Run(r.Lang+"/"+r.Name, func(t *testing.T) {
			t.Parallel()
			if len(r.Examples) < 3 || len(r.CounterExamples) < 3 {
				t.Errorf("%d examples and %d counter-examples, want at least 3 of each", len(r.Examples), len(r.CounterExamples))
			}
			for _, ex := range r.Examples {
				if !fires(i, ex) {
					t.Errorf("does not fire on %q (classified %+v)", ex, Classify(ex))
				}
			}
			for _, ex := range r.CounterExamples {
				if v := Classify(ex); v.InstructionLike() {
					t.Errorf("counter-example %q fired %s/%s on %q", ex, v.Lang, v.Rule, v.Match)
				}
			}
		})
	}
}

func fires(rule int, text string) bool {
	for _, h := range analyse(text).hits {
		if h.rule == rule {
			return true
		}
	}
	return false
}

// Rule names are the families skip reasons and metrics know; languages are the four.
func TestRules_namesAndLanguagesAreKnown(t *testing.T) {
	t.Parallel()
	names := []string{RuleOverride, RulePersona, RuleJailbreak, RulePromptLeak, RuleRoleMarker,
		RuleFakeDelimiter, RuleExfiltration, RuleLinkInjection, RuleToolInvocation, RuleAuthority}
	for _, r := range rules {
		if !slices.Contains(names, r.Name) || !slices.Contains([]string{LangEN, LangZH, LangAny, LangMixed}, r.Lang) {
			t.Errorf("rule %s/%s: unknown name or language", r.Lang, r.Name)
		}
		if strings.TrimSpace(fmt.Sprint(r.Patterns, r.AllOf)) == "[] []" {
			t.Errorf("rule %s/%s has no patterns", r.Lang, r.Name)
		}
	}
}

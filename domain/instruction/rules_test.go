package instruction

import (
	"fmt"
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

func TestRules_namesAreUniquePerLanguage(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, r := range rules {
		id := fmt.Sprintf("%s/%s", r.Lang, r.Name)
		if seen[id] {
			t.Errorf("two rules %s", id)
		}
		seen[id] = true
		if strings.TrimSpace(r.Name) == "" {
			t.Errorf("a %s rule without a name", r.Lang)
		}
	}
}

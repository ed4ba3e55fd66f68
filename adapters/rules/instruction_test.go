package rules_test

import (
	"testing"

	"engram/adapters/rules"
	"engram/domain/candidate"
	"engram/domain/instruction"
)

// The instruction screen costs the rule extractor nothing on its labelled set: no
// message of it is instruction-like, and every candidate the extractor proposes
// passes the screen the pipeline applies (app/extraction, screen.go).
func TestLabelled_instructionScreenDropsNothing(t *testing.T) {
	t.Parallel()
	e := rules.NewExtractor(rules.ExtractorOptions{})
	messages, proposed := 0, 0
	for _, l := range loadLabelled(t) {
		messages++
		if v := instruction.Classify(l.Text); v.InstructionLike() {
			t.Errorf("%s:%d flagged as %s on %q: %q", labelledPath, l.line, v.Rule, v.Match, l.Text)
		}
		sources := candidate.NewSources([]string{"m"}, []string{l.Text})
		for _, c := range e.ExtractMessage("m", l.Text) {
			proposed++
			if s := sources.Check(c); !s.Kept {
				t.Errorf("%s:%d candidate %s %q dropped as %s (%s)", labelledPath, l.line, c.Key, c.Content, s.Reason, s.Detail)
			}
		}
	}
	t.Logf("%d labelled messages, %d candidates proposed, none screened out", messages, proposed)
}

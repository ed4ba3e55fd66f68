package extraction

import (
	"engram/domain/candidate"
	"engram/domain/conversation"
)

// ReasonNotGrounded drops a candidate whose content the user did not say: built
// from the assistant's text, the summary or the model's imagination.
const ReasonNotGrounded = "not_grounded"

// screen applies seed 000's boundaries (noise keys, profile slots, time windows,
// reminders, weather, tool lists, wrong slot values, minimum confidence) to every
// candidate, whichever extractor proposed it, and keeps only candidates grounded in
// what the user said: the triggers and the user's earlier messages of the
// conversation, never the assistant's.
func (p *Pipeline) screen(cands []candidate.Candidate, triggers, earlier []conversation.Message, rep *Report) []candidate.Candidate {
	userTexts := make([]string, 0, len(triggers)+len(earlier))
	for _, m := range earlier {
		if m.IsUser() {
			userTexts = append(userTexts, m.Content)
		}
	}
	for _, m := range triggers {
		userTexts = append(userTexts, m.Content)
	}
	kept := make([]candidate.Candidate, 0, len(cands))
	for _, c := range cands {
		if s := p.opts.Boundaries.Check(c); !s.Kept {
			rep.drop(string(s.Reason))
			continue
		}
		if !candidate.Grounded(c, userTexts) {
			rep.drop(ReasonNotGrounded)
			continue
		}
		kept = append(kept, c)
	}
	return kept
}

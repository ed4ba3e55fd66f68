package extraction

import (
	"time"

	"engram/domain/candidate"
	"engram/domain/conversation"
	"engram/domain/secret"
)

// ReasonNotGrounded drops a candidate whose content the user did not say: built
// from the assistant's text, the summary or the model's imagination.
const ReasonNotGrounded = "not_grounded"

// screen applies, to every candidate whichever extractor proposed it:
//
//   - the secret screen: a candidate that holds a secret, as given or masked, is
//     dropped (its message was skipped before extraction already);
//   - the instruction screen: a candidate that reads as an instruction to the
//     assistant, or that was taken from an instruction-like part of its message
//     ("ignore previous instructions", "SYSTEM:", "</memory>"), is dropped as
//     instruction_like:<rule>, and the message is marked with that reason;
//   - seed 000's boundaries (noise keys, profile slots, time windows, reminders,
//     weather, tool lists, wrong slot values, minimum confidence);
//   - grounding in what the user said: the triggers and the user's earlier messages
//     of the conversation, never the assistant's.
//
// A trigger with an instruction-like part is marked even when nothing was taken
// from it, so its message shows why it taught nothing.
func (p *Pipeline) screen(cands []candidate.Candidate, triggers, earlier []conversation.Message, rep *Report) []candidate.Candidate {
	userTexts := make([]string, 0, len(triggers)+len(earlier))
	for _, m := range earlier {
		if m.IsUser() {
			userTexts = append(userTexts, m.Content)
		}
	}
	ids, texts := make([]string, len(triggers)), make([]string, len(triggers))
	for i, m := range triggers {
		userTexts = append(userTexts, m.Content)
		ids[i], texts[i] = m.ID, m.Content
	}
	sources := candidate.NewSources(ids, texts)
	kept := make([]candidate.Candidate, 0, len(cands))
	for _, c := range cands {
		if secret.Holds(c.Content) {
			rep.drop(conversation.SkipSecret)
			continue
		}
		if s := sources.Check(c); !s.Kept {
			rep.drop(string(s.Reason))
			rep.screen(sourceMessage(c, triggers), string(s.Reason))
			continue
		}
		if s := p.opts.Boundaries.Check(c); !s.Kept {
			rep.drop(string(s.Reason))
			continue
		}
		if !candidate.Grounded(c, userTexts) {
			rep.drop(ReasonNotGrounded)
			continue
		}
		rep.keptFrom[sourceMessage(c, triggers)] = true
		kept = append(kept, c)
	}
	for _, id := range ids {
		if v := sources.MessageVerdict(id); v.InstructionLike() {
			rep.screen(id, string(candidate.InstructionReason(v)))
		}
	}
	return kept
}

// outcome is how a trigger ends after a run without error: PROCESSED, or SKIPPED as
// instruction_like when it was screened and nothing was taken from it, or PROCESSED
// with that reason when a clean part of it was used. A clean message that set an
// identity slot is PROCESSED with routed_to_profile: that part went to the
// profile, not to long-term memory.
func outcome(m conversation.Message, rep *Report, now time.Time) conversation.Message {
	reason, screened := rep.screened[m.ID]
	switch {
	case !screened && rep.routedFrom[m.ID]:
		return m.ProcessedExcept(string(candidate.ReasonRoutedToProfile), now)
	case !screened:
		return m.Processed(now)
	case rep.keptFrom[m.ID]:
		return m.ProcessedExcept(reason, now)
	default:
		return m.Skipped(reason, now)
	}
}

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
//   - the memory boundaries (noise keys, profile slots, time windows, reminders,
//     weather, tool lists, wrong slot values, minimum confidence);
//   - grounding in what the user said: the triggers and the user's earlier messages
//     of the conversation, never the assistant's;
//   - importance put into its family's band (candidate.CalibrateImportance), so
//     every extractor rates health, diet and standing rules alike.
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
		kept = append(kept, candidate.CalibrateImportance(c))
	}
	for _, id := range ids {
		if v := sources.MessageVerdict(id); v.InstructionLike() {
			rep.screen(id, string(candidate.InstructionReason(v)))
		}
	}
	return kept
}

// outcome is how a trigger ends after a run without error; every message says
// what it taught (its memory events) or why it taught nothing:
//
//   - candidates over its write limit: PENDING again, skip reason deferred, and the
//     next run writes them;
//   - screened as instruction-like: SKIPPED with instruction_like:<rule> when
//     nothing was taken from it, PROCESSED with that reason when a clean part was;
//   - an identity slot set: PROCESSED, routed_to_profile (its memories, if
//     any, are its events);
//   - a memory written: PROCESSED;
//   - all it said already remembered: PROCESSED, duplicate;
//   - nothing found: PROCESSED, no_fact.
func outcome(m conversation.Message, rep *Report, now time.Time, writeLimit int) conversation.Message {
	reason, screened := rep.screened[m.ID]
	o := rep.outcomeOf(m.ID)
	switch {
	case o.deferred > 0:
		return m.Carried(o.deferred, writeLimit, now)
	case screened && rep.keptFrom[m.ID]:
		return m.ProcessedExcept(reason, now)
	case screened:
		return m.Skipped(reason, now)
	case rep.routedFrom[m.ID]:
		return m.ProcessedExcept(string(candidate.ReasonRoutedToProfile), now)
	case o.learned > 0:
		return m.Processed(now)
	case o.known > 0:
		return m.ProcessedExcept(conversation.SkipDuplicate, now)
	default:
		return m.ProcessedExcept(conversation.SkipNoFact, now)
	}
}

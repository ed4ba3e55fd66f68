package conversation

import (
	"fmt"
	"strings"
	"time"

	"engram/domain/clip"
)

// The skip-reason vocabulary: why a user message taught nothing (SKIPPED, or
// PROCESSED without a memory event), or why part of it was not learned. A message
// is never left without one of its memory events or one of these. Where a reason
// has a detail it follows a colon ("instruction_like:override").
const (
	// Before extraction (no extractor call).
	SkipNotFromUser         = "not_from_user"          // assistant and system turns are context, never a source of facts
	SkipEmptyMessage        = "empty_message"          // nothing but spaces
	SkipTooShort            = "too_short"              // too short to state anything
	SkipGreeting            = "greeting"               // "hi", "你好"
	SkipThanks              = "thanks"                 // "thanks!", "谢谢"
	SkipAcknowledgement     = "acknowledgement"        // "ok", "got it", "好的"
	SkipFarewell            = "farewell"               // "bye", "再见"
	SkipQuestion            = "question"               // a plain question to the assistant
	SkipCommand             = "command"                // a request for this turn only ("translate this")
	SkipNothingAboutTheUser = "nothing_about_the_user" // no first-person fact, preference, plan or rule in it
	SkipInstructionLike     = "instruction_like"       // it tried to instruct the assistant; ":<rule>" says which rule
	SkipSecret              = "secret"                 // it holds a secret or an identity number, as given or masked (domain/secret): nothing is learned from it, no extractor sees it (SKIPPED)
	SkipRoutedToProfile     = "routed_to_profile"      // it set an identity slot of the profile instead of a memory
	SkipNoFact              = "no_fact"                // extraction ran and found nothing lasting about the user in it
	SkipDuplicate           = "duplicate"              // everything it states is already remembered as it says it
	SkipDeferred            = "deferred"               // it waits: part of it is over the per-message write limit, or the model is rate-limited or over budget; PENDING, run again
)

// SkipReasons lists the vocabulary in a stable order (documentation, metrics).
var SkipReasons = []string{SkipNotFromUser, SkipEmptyMessage, SkipTooShort, SkipGreeting, SkipThanks, SkipAcknowledgement,
	SkipFarewell, SkipQuestion, SkipCommand, SkipNothingAboutTheUser, SkipInstructionLike, SkipSecret, SkipRoutedToProfile,
	SkipNoFact, SkipDuplicate, SkipDeferred}

// SkipFamily is a reason without its detail: "instruction_like:override" →
// "instruction_like".
func SkipFamily(reason string) string {
	family, _, _ := strings.Cut(reason, ":")
	return family
}

// IsSkipReason reports whether reason belongs to the vocabulary (with or without
// a detail).
func IsSkipReason(reason string) bool {
	family := SkipFamily(reason)
	for _, r := range SkipReasons {
		if r == family {
			return true
		}
	}
	return false
}

// MaxCarries bounds how often one message is run again for what was over its
// write limit. Each run writes up to the limit of what is still new, so a message
// needs ⌈facts / limit⌉ runs: with the extractors' 12 candidates per message, at
// most 2 with the default limit of 6 and 12 with a limit of 1, both under the
// bound, which only stops a model that proposes new wordings of the same facts on
// every run. A carry counts as an attempt (it is a run), so a carried message that
// then fails has one retry less.
const MaxCarries = 20

// Carried records a run that wrote part of a message and left the rest (deferred
// candidates, over the per-message write limit) for the next run: the message
// stays PENDING, due at once, with skip reason deferred and a note saying how
// much waits. Its attempts count the runs, so a message that keeps coming back is
// settled after MaxCarries runs (PROCESSED, deferred kept as its reason).
func (m Message) Carried(deferred, limit int, now time.Time) Message {
	m.Attempts++
	m.SkipReason = SkipDeferred
	m.Error = clip.Runes(fmt.Sprintf("%d of its memories are over the write limit of %d per message: they are written by the next run",
		deferred, limit), MaxErrorLen)
	if m.Attempts >= MaxCarries {
		m.Status = StatusProcessed
		m.ProcessAfter = time.Time{}
		m.ProcessedAt = now.UTC()
		return m
	}
	m.Status = StatusPending
	m.ProcessAfter = now.UTC()
	return m
}

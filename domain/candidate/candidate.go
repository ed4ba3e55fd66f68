// Package candidate is what the extraction pipeline proposes before anything is
// written: candidates from stage 1, decisions from stage 2, and the boundaries that
// decide what is worth keeping for the long term.
//
// Pure Go, standard library only; both extractors (LLM and rules) share it.
package candidate

import "engram/domain/memory"

// Op is what a candidate asks for.
type Op string

const (
	OpAdd    Op = "ADD"    // a new fact (or an update of the same key)
	OpUpdate Op = "UPDATE" // replace what an existing key says
	OpAppend Op = "APPEND" // add to an existing key
	OpDelete Op = "DELETE" // the user retracted something ("I no longer eat meat")
)

// Candidate is one proposed long-term memory, exactly the memory's fields plus where
// it came from.
type Candidate struct {
	Op              Op
	Type            memory.Type
	Key             string // raw; normalised with memory.ParseKey at write time
	Content         string
	Importance      int
	Confidence      float64
	TTLDays         int    // 0: the default
	SourceMessageID string // the user message that states it
}

// Verdict is stage 2's decision on a candidate.
type Verdict string

const (
	VerdictKeep     Verdict = "keep"      // write it as proposed
	VerdictMerge    Verdict = "merge"     // fold it into an existing memory (TargetKey)
	VerdictReuseKey Verdict = "reuse_key" // it says the same thing as TargetKey: write there
	VerdictDrop     Verdict = "drop"      // not worth keeping, or already known
)

// Decision is a verdict with the candidate it applies to (possibly rewritten, e.g.
// merged content) and a reason for the trace.
type Decision struct {
	Candidate Candidate
	Verdict   Verdict
	TargetKey memory.Key
	Reason    string
}

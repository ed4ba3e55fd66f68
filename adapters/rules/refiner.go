package rules

import (
	"context"
	"fmt"
	"unicode/utf8"

	"engram/domain/candidate"
	"engram/domain/memory"
	"engram/ports"
)

var _ ports.Refiner = (*Refiner)(nil)

// DefaultReuseThreshold is the semantic-duplicate threshold: a candidate at
// least this similar to an existing memory is written to that memory's key.
const DefaultReuseThreshold = 0.82

// RefinerOptions configure the rule refiner. The zero value is usable.
type RefinerOptions struct {
	// ReuseThreshold: Similarity at or above it reuses the existing key; 0 means
	// DefaultReuseThreshold.
	ReuseThreshold float64
	// Boundaries are applied again, so candidates from any extractor are judged the
	// same way; what they drop gets a drop decision with the screen's reason.
	Boundaries candidate.Boundaries
}

// Refiner is the deterministic stage 2: it compares each candidate with the user's
// existing memories by key, exact content and lexical similarity. No model, no I/O.
type Refiner struct {
	opts RefinerOptions
}

// NewRefiner builds a rule refiner.
func NewRefiner(opts RefinerOptions) *Refiner {
	if opts.ReuseThreshold <= 0 || opts.ReuseThreshold > 1 {
		opts.ReuseThreshold = DefaultReuseThreshold
	}
	return &Refiner{opts: opts}
}

// Refine returns one decision per candidate, in order:
//
//   - outside the boundaries → drop (the screen's reason);
//   - the same content as a live memory, or as an earlier candidate → drop;
//   - a DELETE → keep when its key (or a similar memory) exists, else drop;
//   - the same key as an existing memory → keep as an UPDATE of that key
//     (an APPEND becomes a merge with the appended content);
//   - Similarity ≥ ReuseThreshold with a live memory → reuse that memory's key;
//   - otherwise keep as a new memory.
func (r *Refiner) Refine(ctx context.Context, in ports.RefineInput) ([]candidate.Decision, ports.LLMUsage, error) {
	if err := ctx.Err(); err != nil {
		return nil, ports.LLMUsage{}, err
	}
	byKey := map[memory.Key]memory.Memory{}
	var live []memory.Memory
	for _, m := range in.Existing {
		byKey[m.Key()] = m
		if m.IsLive(in.Now) {
			live = append(live, m)
		}
	}
	seen := map[string]memory.Key{} // normalised content of earlier candidates in this batch
	out := make([]candidate.Decision, 0, len(in.Candidates))
	for _, c := range in.Candidates {
		d := r.decide(c, byKey, live, seen)
		if d.Verdict != candidate.VerdictDrop && d.Candidate.Op != candidate.OpDelete {
			seen[candidate.NormalizeContent(d.Candidate.Content)] = d.TargetKey
		}
		out = append(out, d)
	}
	return out, ports.LLMUsage{}, nil
}

func (r *Refiner) decide(c candidate.Candidate, byKey map[memory.Key]memory.Memory, live []memory.Memory, seen map[string]memory.Key) candidate.Decision {
	if s := r.opts.Boundaries.Check(c); !s.Kept {
		return drop(c, string(s.Reason)+": "+s.Detail)
	}
	key, err := memory.ParseKey(c.Key)
	if err != nil {
		return drop(c, "invalid key: "+err.Error())
	}
	c.Key = key.String()
	if c.Op == candidate.OpDelete {
		return r.decideDelete(c, key, byKey, live)
	}
	if reason := duplicateOf(candidate.NormalizeContent(c.Content), live, seen); reason != "" {
		return drop(c, reason)
	}
	if m, ok := byKey[key]; ok {
		return updateExisting(c, key, m)
	}
	if best, sim := r.mostSimilar(c.Content, live); best != nil && sim >= r.opts.ReuseThreshold {
		c.Key = best.Key().String()
		c.Op = candidate.OpUpdate
		return candidate.Decision{Candidate: c, Verdict: candidate.VerdictReuseKey, TargetKey: best.Key(),
			Reason: fmt.Sprintf("%.2f similar to %s (threshold %.2f): reuse its key", sim, best.Key(), r.opts.ReuseThreshold)}
	}
	if c.Op == "" {
		c.Op = candidate.OpAdd
	}
	return candidate.Decision{Candidate: c, Verdict: candidate.VerdictKeep, TargetKey: key, Reason: "new memory"}
}

func drop(c candidate.Candidate, reason string) candidate.Decision {
	return candidate.Decision{Candidate: c, Verdict: candidate.VerdictDrop, Reason: reason}
}

// decideDelete keeps a DELETE that names a memory: by its key, or the live memory
// most similar to what it retracts.
func (r *Refiner) decideDelete(c candidate.Candidate, key memory.Key, byKey map[memory.Key]memory.Memory, live []memory.Memory) candidate.Decision {
	if m, ok := byKey[key]; ok && m.Active() {
		return candidate.Decision{Candidate: c, Verdict: candidate.VerdictKeep, TargetKey: key, Reason: "delete the memory with this key"}
	}
	if best, sim := r.mostSimilar(c.Content, live); best != nil && sim >= r.opts.ReuseThreshold {
		c.Key = best.Key().String()
		return candidate.Decision{Candidate: c, Verdict: candidate.VerdictReuseKey, TargetKey: best.Key(),
			Reason: fmt.Sprintf("delete the memory %.2f similar to it", sim)}
	}
	return drop(c, "nothing to delete under this key")
}

// duplicateOf names what a candidate's normalised content already is: a live
// memory or an earlier candidate of the batch; "" when it is new.
func duplicateOf(norm string, live []memory.Memory, seen map[string]memory.Key) string {
	for _, m := range live {
		if candidate.NormalizeContent(m.Content()) == norm {
			return "duplicate of existing memory " + m.Key().String()
		}
	}
	if k, ok := seen[norm]; ok {
		return "duplicate of an earlier candidate " + k.String()
	}
	return ""
}

// updateExisting writes a candidate to the existing memory of its key: an APPEND to
// an active memory merges while the merged content fits, anything else updates.
func updateExisting(c candidate.Candidate, key memory.Key, m memory.Memory) candidate.Decision {
	if c.Op == candidate.OpAppend && m.Active() {
		merged := m.Content() + memory.AppendSeparator + c.Content
		if utf8.RuneCountInString(merged) <= memory.MaxContentLen {
			c.Content = merged
			c.Op = candidate.OpUpdate
			return candidate.Decision{Candidate: c, Verdict: candidate.VerdictMerge, TargetKey: key,
				Reason: "append to the memory with this key"}
		}
	}
	c.Op = candidate.OpUpdate
	return candidate.Decision{Candidate: c, Verdict: candidate.VerdictKeep, TargetKey: key,
		Reason: "same key as an existing memory: update it"}
}

// mostSimilar returns the live memory most similar to content. Ties go to the
// earlier memory, so the result does not depend on map order.
func (r *Refiner) mostSimilar(content string, live []memory.Memory) (*memory.Memory, float64) {
	var best *memory.Memory
	bestSim := 0.0
	for i := range live {
		if sim := candidate.Similarity(content, live[i].Content()); sim > bestSim {
			best, bestSim = &live[i], sim
		}
	}
	return best, bestSim
}

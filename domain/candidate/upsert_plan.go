package candidate

import (
	"slices"
	"time"

	"engram/domain/memory"
)

// Reasons a refined candidate is not written (beyond the boundaries' reasons).
const (
	ReasonRefinedAway    = "refined_away"     // stage 2 dropped it
	ReasonOverWriteLimit = "over_write_limit" // past its message's LONG_TERM_MEMORY_MAX_WRITE_ITEMS: deferred to the next run
)

// Neighbourhood is what stages 2 and 3 compare the candidates of one run with:
// the user's existing memories found for them and how alike each pair is, in
// [0, 1] (a cosine of stored vectors, or the lexical Similarity; 0 when unknown).
type Neighbourhood struct {
	Existing []memory.Memory // live or not; key matches and nearest memories, no repeats
	Alike    [][]float64     // Alike[i][j]: candidate i and Existing[j]
	Among    [][]float64     // Among[i][k]: candidates i and k of the run
	// Lexical says the scores are the lexical Similarity of contents, which the
	// merge plan can then compute for written memories too (an append changes
	// what a memory says); with vectors it goes by the candidates' scores.
	Lexical bool
}

// alike is Alike[i][j], 0 when out of range.
func (n Neighbourhood) alike(i, j int) float64 {
	if i < 0 || i >= len(n.Alike) || j < 0 || j >= len(n.Alike[i]) {
		return 0
	}
	return n.Alike[i][j]
}

// among is Among[i][k], 0 when out of range.
func (n Neighbourhood) among(i, k int) float64 {
	if i < 0 || i >= len(n.Among) || k < 0 || k >= len(n.Among[i]) {
		return 0
	}
	return n.Among[i][k]
}

// Collisions says which candidates stage 2 has something to decide about: those
// whose key a live existing memory has, or that are at least duplicate alike to a
// live one (the threshold at which stage 3 would reuse that memory's key). A
// candidate that collides with nothing is a new memory whatever a refiner says, so
// it is kept as proposed without a call.
func Collisions(cands []Candidate, n Neighbourhood, duplicate float64, now time.Time) []bool {
	out := make([]bool, len(cands))
	for i, c := range cands {
		key, keyErr := memory.ParseKey(c.Key)
		for j, m := range n.Existing {
			if !m.IsLive(now) {
				continue
			}
			if keyErr == nil && m.Key() == key || n.alike(i, j) >= duplicate {
				out[i] = true
				break
			}
		}
	}
	return out
}

// UpsertPolicy is stage 3's rules, the same for every extractor.
type UpsertPolicy struct {
	Boundaries          Boundaries
	MaxWrites           int     // per user message: LONG_TERM_MEMORY_MAX_WRITE_ITEMS
	DuplicateSimilarity float64 // reuse an existing memory's key at or above
	MergeSimilarity     float64 // fold a redundant copy into a written memory at or above
}

// Write is one planned write: decision Decision, its candidate written under Key.
type Write struct {
	Decision  int
	Candidate Candidate // with Key set to the key written
	Key       memory.Key
	Reused    bool // a similar memory lent its key
	Merging   bool // stage 2 merged it into the memory at Key
	// Restates: the live memory at Key already says this (same type, same
	// content). It is still applied (a restatement renews the memory) but does not
	// count against the write limit.
	Restates bool
}

// WritePlan is what stage 3 writes, in order, and why the rest is not written.
type WritePlan struct {
	Writes  []Write
	Dropped []string // one reason per decision not written
	// Deferred are the decisions over their message's write limit, by index: the
	// message is run again and they are written then, never discarded.
	Deferred []int
}

// PlanWrites turns one decision per candidate into writes, at most MaxWrites new
// ones per source message (Candidate.SourceMessageID), most important first:
//
//   - candidates are taken by importance (CalibrateImportance: a health fact is
//     at least 4, a like at most 3), highest first, so a health constraint never
//     loses its place to a name; candidates of one key keep their order
//     and take the highest importance among them, so a retraction and a
//     restatement of the same thing are still applied as said;
//   - a dropped decision is not written (ReasonRefinedAway);
//   - the key is the decision's target (or the candidate's), screened again,
//     since a refiner may have rewritten it;
//   - without a live memory under that key, the live memory (existing, or written
//     earlier in the run) most alike the candidate lends its key when it is at
//     least DuplicateSimilarity alike, so the same fact is not stored twice;
//   - a write that only restates a live memory does not count against the
//     limit; a candidate over its message's limit is deferred, not dropped.
//
// The plan assumes each write lands (a DELETE leaves its key without a live
// memory, anything else leaves one); what the store already says is checked when
// the write is applied.
func (p UpsertPolicy) PlanWrites(decisions []Decision, n Neighbourhood, now time.Time) WritePlan {
	live := liveSlots(n, now)
	var plan WritePlan
	perMessage := map[string]int{}
	for _, i := range writeOrder(decisions) {
		w, reason := p.target(i, decisions[i], live, n)
		if reason != "" {
			plan.Dropped = append(plan.Dropped, reason)
			continue
		}
		c := w.Candidate
		held, isLive := live[w.Key]
		w.Restates = isLive && c.Op != OpDelete && held.says(c, n)
		if !w.Restates {
			if perMessage[c.SourceMessageID] >= p.MaxWrites {
				plan.Deferred = append(plan.Deferred, i)
				continue
			}
			perMessage[c.SourceMessageID]++
		}
		plan.Writes = append(plan.Writes, w)
		if c.Op == OpDelete {
			delete(live, w.Key)
			continue
		}
		held.writer, held.written, held.content, held.typ = i, true, c.Content, c.Type
		if !isLive {
			held.existing = -1
		}
		live[w.Key] = held
	}
	return plan
}

// target is decision i as a write (its candidate screened again, its key, a
// similar memory's key lent), or why it is not written.
func (p UpsertPolicy) target(i int, d Decision, live map[memory.Key]slot, n Neighbourhood) (Write, string) {
	if d.Verdict == VerdictDrop {
		return Write{}, ReasonRefinedAway
	}
	c := d.Candidate
	if !d.TargetKey.IsZero() {
		c.Key = d.TargetKey.String()
	}
	c = CalibrateImportance(c) // a refiner may have changed the key or the importance
	if c.IsSlot() {            // a refiner turned it into a slot: Route's, never a write
		return Write{}, string(ReasonProfileSlot)
	}
	if s := p.Boundaries.Check(c); !s.Kept {
		return Write{}, string(s.Reason)
	}
	if s := ScreenInstructions(c); !s.Kept { // a refiner may have rewritten the content
		return Write{}, string(s.Reason)
	}
	key, err := memory.ParseKey(c.Key)
	if err != nil {
		return Write{}, string(ReasonInvalid)
	}
	w := Write{Decision: i, Key: key, Merging: d.Verdict == VerdictMerge}
	if _, ok := live[key]; !ok && c.Op != OpDelete {
		if best, sim := mostAlike(i, live, n); sim >= p.DuplicateSimilarity && sim > 0 {
			w.Key, w.Reused = best, true
		}
	}
	c.Key = w.Key.String()
	w.Candidate = c
	return w, ""
}

// writeOrder is the order decisions are planned in: by importance, highest
// first; the candidates of one key take the highest importance among them and
// keep their order, as do candidates of equal importance.
func writeOrder(decisions []Decision) []int {
	keyOf := func(d Decision) string {
		if !d.TargetKey.IsZero() {
			return d.TargetKey.String()
		}
		return d.Candidate.Key
	}
	rank := map[string]int{}
	for _, d := range decisions {
		c := d.Candidate
		c.Key = keyOf(d)
		rank[c.Key] = max(rank[c.Key], CalibrateImportance(c).Importance)
	}
	order := make([]int, len(decisions))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return rank[keyOf(decisions[b])] - rank[keyOf(decisions[a])] })
	return order
}

// slot is a key with a live memory: the existing memory it holds (existing ≥ 0)
// and the candidate written there in this run, if any.
type slot struct {
	existing int
	writer   int
	written  bool
	content  string      // what the candidate written there says
	typ      memory.Type // and its type
}

// says reports whether the slot already holds what c says: the candidate written
// there in this run, or else the existing memory.
func (s slot) says(c Candidate, n Neighbourhood) bool {
	if s.written {
		return s.typ == c.Type && SameContent(s.content, c.Content)
	}
	if s.existing < 0 || s.existing >= len(n.Existing) {
		return false
	}
	m := n.Existing[s.existing]
	return m.Type() == c.Type && SameContent(m.Content(), c.Content)
}

func liveSlots(n Neighbourhood, now time.Time) map[memory.Key]slot {
	live := map[memory.Key]slot{}
	for j, m := range n.Existing {
		if m.IsLive(now) {
			live[m.Key()] = slot{existing: j, writer: -1}
		}
	}
	return live
}

// likeness is how alike candidate i is to what a slot holds: the better of its
// existing memory and the candidate written there.
func (s slot) likeness(i int, n Neighbourhood) float64 {
	best := 0.0
	if s.existing >= 0 {
		best = n.alike(i, s.existing)
	}
	if s.written && s.writer != i {
		best = max(best, n.among(i, s.writer))
	}
	return best
}

// mostAlike is the live key most alike candidate i (ties: the smaller key).
func mostAlike(i int, live map[memory.Key]slot, n Neighbourhood) (memory.Key, float64) {
	keys := make([]memory.Key, 0, len(live))
	for k := range live {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, memory.Key.Compare)
	var (
		best    memory.Key
		bestSim float64
	)
	for _, k := range keys {
		if sim := live[k].likeness(i, n); sim > bestSim {
			best, bestSim = k, sim
		}
	}
	return best, bestSim
}

// Stored is a live memory after the writes of a run, as the merge plan sees it:
// the memory, the candidate whose write it holds (-1: none) and its index in the
// neighbourhood (-1: not there, a new memory).
type Stored struct {
	Memory   memory.Memory
	Writer   int
	Existing int
}

// Merge is one planned fold: Copy is folded into Survivor.
type Merge struct {
	Survivor memory.Key
	Copy     memory.Key
}

// PlanMerges folds, for each written key in order, the other live memories that
// say the same (equal content) or are at least MergeSimilarity alike to it. A copy
// folded into an earlier survivor is gone for the later ones, and so is a
// survivor folded meanwhile.
func (p UpsertPolicy) PlanMerges(written []memory.Key, live []Stored, n Neighbourhood) []Merge {
	byKey := make(map[memory.Key]Stored, len(live))
	keys := make([]memory.Key, 0, len(live))
	for _, s := range live {
		byKey[s.Memory.Key()] = s
		keys = append(keys, s.Memory.Key())
	}
	slices.SortFunc(keys, memory.Key.Compare)
	var folds []Merge
	for _, key := range written {
		survivor, ok := byKey[key]
		if !ok {
			continue
		}
		for _, k := range keys {
			other, ok := byKey[k]
			if !ok || k == key {
				continue
			}
			if !SameContent(other.Memory.Content(), survivor.Memory.Content()) && storedLikeness(survivor, other, n) < p.MergeSimilarity {
				continue
			}
			folds = append(folds, Merge{Survivor: key, Copy: k})
			delete(byKey, k)
		}
	}
	return folds
}

// storedLikeness is how alike the memory written by a candidate is to another
// live memory, by what the neighbourhood knows of their candidates.
func storedLikeness(survivor, other Stored, n Neighbourhood) float64 {
	if n.Lexical {
		return Similarity(survivor.Memory.Content(), other.Memory.Content())
	}
	if survivor.Writer < 0 {
		return 0
	}
	best := 0.0
	if other.Existing >= 0 {
		best = n.alike(survivor.Writer, other.Existing)
	}
	if other.Writer >= 0 && other.Writer != survivor.Writer {
		best = max(best, n.among(survivor.Writer, other.Writer))
	}
	return best
}

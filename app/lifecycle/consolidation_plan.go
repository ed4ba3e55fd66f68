package lifecycle

import (
	"slices"
	"strings"
	"time"

	"engram/domain/candidate"
	"engram/domain/memory"
)

// consolidation is what one run does to a user's memories, in order: it is
// decided from what they hold (planConsolidation) before anything is written.
type consolidation struct {
	ends  []ending // the expired first (EXPIRE), then the noise (DELETE)
	folds []fold   // key variants first, then near-duplicates
}

// ending is one memory deactivated.
type ending struct {
	key   memory.Key
	op    memory.Op // EXPIRE or DELETE
	count string    // CountExpired or CountNoiseDeleted
}

// fold is one copy folded into a survivor (a DELETE and a MERGE).
type fold struct {
	survivor memory.Key
	copyOf   memory.Key
	// says is the key variant said last when it is not the survivor: the survivor
	// takes its type and content.
	says  *memory.Memory
	count string // CountKeysNormalised or CountMerged
}

// planConsolidation decides a run from the user's memories (all, inactive and
// expired included, noise hidden) and the memories under noise keys, at now:
//
//   - an active memory past its expiry is expired;
//   - an active memory under a noise key is deleted;
//   - live memories whose keys differ only in separators are folded under the
//     key of the scheme (keyVariants), keeping the content said last;
//   - of the rest, a live memory with the same content as a more important (then
//     more recent) one, or at least mergeSimilarity similar, is folded into it.
func planConsolidation(all, noisy []memory.Memory, now time.Time, mergeSimilarity float64) consolidation {
	var plan consolidation
	var live []memory.Memory
	for _, m := range all {
		switch {
		case m.Active() && m.IsExpired(now):
			plan.ends = append(plan.ends, ending{key: m.Key(), op: memory.OpExpire, count: CountExpired})
		case m.IsLive(now):
			live = append(live, m)
		}
	}
	for _, m := range noisy {
		if m.Active() {
			plan.ends = append(plan.ends, ending{key: m.Key(), op: memory.OpDelete, count: CountNoiseDeleted})
		}
	}
	folded := map[memory.Key]bool{}
	for _, group := range keyVariants(live) {
		plan.folds = append(plan.folds, foldVariants(group, folded)...)
	}
	remaining := slices.DeleteFunc(slices.Clone(live), func(m memory.Memory) bool { return folded[m.Key()] })
	plan.folds = append(plan.folds, foldNearDuplicates(remaining, mergeSimilarity)...)
	return plan
}

// foldVariants folds every other memory of a key-variant group into its first,
// which takes the content of the one said last; each copy is marked folded.
func foldVariants(group []memory.Memory, folded map[memory.Key]bool) []fold {
	survivor, newest := group[0], group[0]
	for _, m := range group[1:] {
		if m.UpdatedAt().After(newest.UpdatedAt()) {
			newest = m
		}
	}
	var says *memory.Memory
	if newest.Key() != survivor.Key() {
		says = &newest
	}
	out := make([]fold, 0, len(group)-1)
	for _, m := range group[1:] {
		out = append(out, fold{survivor: survivor.Key(), copyOf: m.Key(), says: says, count: CountKeysNormalised})
		folded[m.Key()] = true
	}
	return out
}

// foldNearDuplicates folds each memory into the first before it, in the order
// of what survives (more important, then more recently changed, then by key),
// that says the same or is at least mergeSimilarity similar.
func foldNearDuplicates(memories []memory.Memory, mergeSimilarity float64) []fold {
	slices.SortStableFunc(memories, survivesFirst)
	terms := make([]map[string]bool, len(memories))
	for i, m := range memories {
		terms[i] = candidate.Terms(m.Content())
	}
	folded := make([]bool, len(memories))
	var out []fold
	for i, survivor := range memories {
		if folded[i] {
			continue
		}
		for j := i + 1; j < len(memories); j++ {
			other := memories[j]
			if folded[j] || (!candidate.SameContent(survivor.Content(), other.Content()) &&
				candidate.TermSimilarity(terms[i], terms[j]) < mergeSimilarity) {
				continue
			}
			out = append(out, fold{survivor: survivor.Key(), copyOf: other.Key(), count: CountMerged})
			folded[j] = true
		}
	}
	return out
}

// survivesFirst orders memories by which one a merge keeps: the more important,
// then the more recently changed, then the smaller key.
func survivesFirst(a, b memory.Memory) int {
	if a.Importance() != b.Importance() {
		return b.Importance() - a.Importance()
	}
	if c := b.UpdatedAt().Compare(a.UpdatedAt()); c != 0 {
		return c
	}
	return strings.Compare(a.Key().String(), b.Key().String())
}

// keyVariants groups live memories whose keys are the same once '-', '_' and '.'
// are read alike. The first of each group is the key to keep: the one written in
// the scheme's '.' form if any, else the shortest, then the smallest.
func keyVariants(live []memory.Memory) [][]memory.Memory {
	groups := map[string][]memory.Memory{}
	var order []string
	for _, m := range live {
		u := strings.NewReplacer("-", ".", "_", ".").Replace(m.Key().String())
		if _, seen := groups[u]; !seen {
			order = append(order, u)
		}
		groups[u] = append(groups[u], m)
	}
	var out [][]memory.Memory
	for _, u := range order {
		g := groups[u]
		if len(g) < 2 {
			continue
		}
		slices.SortStableFunc(g, func(a, b memory.Memory) int {
			ka, kb := a.Key().String(), b.Key().String()
			if sa, sb := strings.Count(ka, "."), strings.Count(kb, "."); sa != sb {
				return sb - sa
			}
			if len(ka) != len(kb) {
				return len(ka) - len(kb)
			}
			return strings.Compare(ka, kb)
		})
		out = append(out, g)
	}
	return out
}

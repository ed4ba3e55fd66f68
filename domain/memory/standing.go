package memory

import "cmp"

// DefaultStandingMinImportance is the importance from which a memory is standing
// whatever its type (ENGRAM_CONTEXT_STANDING_MIN_IMPORTANCE).
const DefaultStandingMinImportance = 4

// IsStanding reports whether the memory is a standing one — a constraint, a
// memory of at least minImportance, or a pinned one: what the agent must know
// whatever the question (an allergy, the reply language, "never book red-eyes").
func (m Memory) IsStanding(minImportance int) bool {
	return m.s.Type == TypeConstraint || m.s.Importance >= minImportance || m.s.Pinned
}

// CompareStanding orders standing memories: most important first, then the most
// recently changed, then by id (newest first) so the order is total.
func CompareStanding(a, b Memory) int {
	if c := cmp.Compare(b.s.Importance, a.s.Importance); c != 0 {
		return c
	}
	if c := b.s.UpdatedAt.Compare(a.s.UpdatedAt); c != 0 {
		return c
	}
	return cmp.Compare(b.s.ID, a.s.ID)
}

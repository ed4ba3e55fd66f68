package org

import "slices"

// Relation is how an acting user stands to the user whose data they ask for.
type Relation int

const (
	// RelationNone: neither the user nor a manager above them.
	RelationNone Relation = iota
	// RelationSelf: the user themselves.
	RelationSelf
	// RelationManager: a manager above the user, at any level.
	RelationManager
)

// Access is the outcome of Decide.
type Access struct {
	Relation Relation
	// Levels is how far above the user the actor sits: 1 for the direct manager,
	// 2 for the manager's manager…; 0 unless Relation is RelationManager.
	Levels int
}

// Decide says how actor stands to target, given target's chain of managers (direct
// manager first, as the store follows it up to MaxChainDepth). Peers, reports and
// other departments are all RelationNone: only the line above a user may look down.
func Decide(actor, target string, chain []string) Access {
	if actor == target {
		return Access{Relation: RelationSelf}
	}
	if i := slices.Index(chain, actor); i >= 0 {
		return Access{Relation: RelationManager, Levels: i + 1}
	}
	return Access{Relation: RelationNone}
}

// Allowed reports whether the relation lets the actor read the user's profile.
func (a Access) Allowed() bool { return a.Relation != RelationNone }

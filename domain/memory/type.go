package memory

import (
	"strings"

	"engram/domain/invalid"
)

// Type is what kind of long-term memory an item is. Identity-profile fields
// (nickname, AI name, emoji) are deliberately not a type: they belong to profiles.
type Type string

const (
	TypePreference Type = "preference" // stable likes, habits, styles
	TypeFact       Type = "fact"       // facts still true in 30 days
	TypeGoal       Type = "goal"       // long-term goals and plans
	TypeProject    Type = "project"    // long-running project context
	TypeConstraint Type = "constraint" // standing rules ("always answer in Chinese")
)

// Types lists every type in a stable order.
var Types = []Type{TypePreference, TypeFact, TypeGoal, TypeProject, TypeConstraint}

// ParseType accepts a type name in any letter case.
func ParseType(s string) (Type, error) {
	t := Type(strings.ToLower(strings.TrimSpace(s)))
	for _, known := range Types {
		if t == known {
			return t, nil
		}
	}
	return "", invalid.FieldValue("type", s, "must be one of preference, fact, goal, project, constraint")
}

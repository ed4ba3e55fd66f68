package org

import (
	"slices"
	"strings"

	"engram/domain/invalid"
)

// MaxChainDepth bounds how far up a manager chain is followed. Real organisations
// are far shallower; a longer chain is broken data and is cut here rather than
// followed for ever.
const MaxChainDepth = 64

// CheckManager says whether user may report to manager, given manager's own chain
// of managers (direct manager first). If the chain reaches user, the new edge would
// close a loop: the error is a validation failure on manager_id that shows it.
func CheckManager(user, manager string, managerChain []string) error {
	if manager == "" {
		return nil
	}
	if manager == user {
		return invalid.FieldValue("manager_id", manager, "must not be the user itself: nobody manages themselves")
	}
	i := slices.Index(managerChain, user)
	if i < 0 {
		return nil
	}
	loop := append([]string{user, manager}, managerChain[:i+1]...)
	return invalid.FieldValue("manager_id", manager,
		"would make a management cycle (%s); change the manager of one of them first", strings.Join(loop, " → "))
}

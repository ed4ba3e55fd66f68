package extraction

import (
	"engram/domain/candidate"
	"engram/domain/conversation"
	"engram/domain/secret"
)

// prefilter is the cost gate in front of the extractor: the reason a user message
// cannot carry anything worth keeping (a greeting, thanks, a plain question, a
// request for this turn only), or "" when it may. A skipped message costs no model
// call and is marked SKIPPED with this reason.
//
// A message that holds a secret, as given or masked, is skipped first: no model
// ever sees it, and nothing is learned from it.
func prefilter(m conversation.Message) string {
	if secret.Holds(m.Content) {
		return conversation.SkipSecret
	}
	return string(candidate.PrefilterReason(m.Content))
}

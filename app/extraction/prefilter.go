package extraction

import (
	"engram/domain/candidate"
	"engram/domain/conversation"
)

// prefilter is the cost gate in front of the extractor: the reason a user message
// cannot carry anything worth keeping (a greeting, thanks, a plain question, a
// request for this turn only), or "" when it may. A skipped message costs no model
// call and is marked SKIPPED with this reason.
func prefilter(m conversation.Message) string {
	return string(candidate.PrefilterReason(m.Content))
}

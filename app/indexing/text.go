package indexing

import (
	"engram/domain/conversation"
)

// indexedMessage reports whether a message gets a vector: what users and
// assistants said does; system messages (instructions, tool plumbing) do not, and
// they are not counted as anyone's neighbours either.
func indexedMessage(m conversation.Message) bool {
	return m.Role == conversation.RoleUser || m.Role == conversation.RoleAssistant
}

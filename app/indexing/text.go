package indexing

import (
	"engram/domain/conversation"
)

// DateLayout is how a message's date joins its text: questions name months and
// years, and the measured method appends the date this way.
const DateLayout = "2 January 2006"

// MessageText is what is embedded of a message: the speaker's name (when the client
// gave one), the content, and the date it was said — the text lexical search
// indexes too (app/retrieval.MessageText), so both sides see the same document.
func MessageText(m conversation.Message) string {
	text := m.Content
	if m.Name != "" {
		text = m.Name + ": " + text
	}
	return text + " " + m.CreatedAt.UTC().Format(DateLayout)
}

// indexedMessage reports whether a message gets a vector: what users and
// assistants said does; system messages (instructions, tool plumbing) do not, and
// they are not counted as anyone's neighbours either.
func indexedMessage(m conversation.Message) bool {
	return m.Role == conversation.RoleUser || m.Role == conversation.RoleAssistant
}

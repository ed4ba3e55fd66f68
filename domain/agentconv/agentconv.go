// Package agentconv is the history an agent keeps through a conversation API: a
// conversation holds items (messages, tool calls and their outputs, reasoning…)
// in the order they were added, each kept byte for byte as the client sent it.
// The user's and the assistant's text of those items are also the turns of the
// engram session the conversation is.
package agentconv

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
	"unicode/utf8"

	"engram/domain/clip"
	"engram/domain/conversation"
	"engram/domain/invalid"
	"engram/domain/memory"
)

// FlowID is the flow of the session a conversation is: conversations of every
// agent of a user share it, and each conversation is its own session.
const FlowID = "openai-conversations"

// Page bounds of an item listing.
const (
	DefaultPage = 20
	MaxPage     = 100
)

// MaxItemsPerAdd bounds the items one call adds.
const MaxItemsPerAdd = 1000

// Metadata bounds, the OpenAI API's: a few short labels, not a store.
const (
	MaxMetadataKeys     = 16
	MaxMetadataKeyLen   = 64
	MaxMetadataValueLen = 512
)

// Conversation is one conversation of a user, with the labels its client set.
type Conversation struct {
	ID        string
	Scope     memory.Scope
	CreatedAt time.Time
	Metadata  map[string]string
}

// ValidateMetadata checks a conversation's labels against the bounds.
func ValidateMetadata(m map[string]string) error {
	if len(m) > MaxMetadataKeys {
		return invalid.Field("metadata", "must have at most %d keys, got %d", MaxMetadataKeys, len(m))
	}
	for k, v := range m {
		if n := utf8.RuneCountInString(k); n == 0 || n > MaxMetadataKeyLen {
			return invalid.FieldValue("metadata", k, "keys must be 1 to %d characters", MaxMetadataKeyLen)
		}
		if n := utf8.RuneCountInString(v); n > MaxMetadataValueLen {
			return invalid.FieldValue("metadata."+k, clip.Runes(v, 40), "must be at most %d characters, got %d", MaxMetadataValueLen, n)
		}
	}
	return nil
}

// ValidateItemID checks an id a client gave an item (reasoning items keep
// theirs) or names in a path.
func ValidateItemID(field, id string) error {
	return memory.ValidateUserID(field, id)
}

// Role of a message item; empty for items that are not messages.
type Role string

// The roles a message item may have.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleSystem    Role = "system"
	RoleDeveloper Role = "developer"
)

// Item is one item of a conversation. Raw is the item exactly as the client sent
// it; Type, Role and Text are read from it when it is added: Text is the text a
// message says (empty for other items). Seq orders the items of a conversation.
type Item struct {
	ID   string
	Seq  int64
	Type string
	Role Role
	Text string
	Raw  []byte
}

// IDPrefix is the prefix of the id engram gives an item of the type, after the
// convention of the OpenAI API (msg_, fc_…); "item" for any other type.
func IDPrefix(itemType string) string {
	switch itemType {
	case "message":
		return "msg"
	case "function_call":
		return "fc"
	case "function_call_output":
		return "fco"
	case "reasoning":
		return "rs"
	case "file_search_call":
		return "fs"
	case "web_search_call":
		return "ws"
	case "computer_call":
		return "cu"
	case "computer_call_output":
		return "cuo"
	}
	return "item"
}

// NewItemID is an item id: the type's prefix and a unique suffix.
func NewItemID(itemType, unique string) string {
	return IDPrefix(itemType) + "_" + strings.ToLower(unique)
}

// NewConversationID is a conversation id: "conv_" and a unique suffix.
func NewConversationID(unique string) string {
	return "conv_" + strings.ToLower(unique)
}

// Exchange is one turn of the session: what the user said and what the
// assistant answered. Its id derives from the turn's first user message and its
// texts, so the same items always make the same exchange, and a turn whose text
// changed (more of the answer was added) is another exchange, never a conflict
// with the one recorded before.
type Exchange struct {
	ID        string
	User      string
	Assistant string
}

// exchangeID is the id of the turn that starts at the item and says these texts.
func exchangeID(firstItemID, user, assistant string) string {
	sum := sha256.Sum256([]byte(firstItemID + "\x00" + user + "\x00" + assistant))
	return "turn-" + hex.EncodeToString(sum[:12])
}

// Exchanges are the turns the items make, in order. A turn is a run of user
// messages and what follows them up to the next user message: its user text is
// the user messages' texts, its assistant text the assistant messages' texts,
// each joined by blank lines. Tool calls, their outputs, reasoning and system or
// developer messages add no text. A turn with no user text (items before the
// first user message) or no assistant text yet (the answer not added yet) is no
// exchange.
func Exchanges(items []Item) []Exchange {
	var (
		out             []Exchange
		cur             Exchange
		user, assistant []string
		answering       bool
	)
	flush := func() {
		if len(user) > 0 && len(assistant) > 0 {
			cur.User, cur.Assistant = turnText(user), turnText(assistant)
			cur.ID = exchangeID(cur.ID, cur.User, cur.Assistant)
			out = append(out, cur)
		}
		cur, user, assistant, answering = Exchange{}, nil, nil, false
	}
	for _, it := range items {
		text := strings.TrimSpace(it.Text)
		switch {
		case it.Role == RoleUser && text != "":
			if answering {
				flush()
			}
			if len(user) == 0 {
				cur.ID = it.ID
			}
			user = append(user, text)
		case len(user) == 0:
			// Nothing before the first user message is part of a turn.
		case it.Role == RoleAssistant && text != "":
			answering = true
			assistant = append(assistant, text)
		default:
			answering = true
		}
	}
	flush()
	return out
}

// turnText joins the texts of one side of a turn, bounded as a session message
// is (a long answer is cut, not refused: the items keep it whole) and without
// the NUL characters no store keeps.
func turnText(texts []string) string {
	joined := strings.ToValidUTF8(strings.ReplaceAll(strings.Join(texts, "\n\n"), "\x00", ""), "\uFFFD")
	return clip.Runes(joined, conversation.MaxContentLen)
}

// Changed says whether the exchanges after a change of the items differ from
// before in any exchange that was recorded: then the session must be rebuilt,
// since a recorded turn cannot be rewritten. Exchanges only added at the end
// need no rebuild.
func Changed(before, after []Exchange) bool {
	if len(after) < len(before) {
		return true
	}
	for i, b := range before {
		if after[i] != b {
			return true
		}
	}
	return false
}

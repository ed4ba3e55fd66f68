// Package conversation is the extraction channel's view of a conversation: the
// messages agents post, who said them, and where each user message is in the
// extraction pipeline (PENDING → PROCESSED | FAILED | SKIPPED).
//
// Only user messages are a source of facts; assistant and system messages are kept as
// context and episodic memory. Pure Go, standard library only.
package conversation

import (
	"strings"
	"time"
	"unicode/utf8"

	"engram/domain/invalid"
	"engram/domain/memory"
)

// Limits on what a client may post.
const (
	MaxContentLen = 32000 // characters; long pastes belong in a knowledge base
	MaxIDLen      = 128
	MaxNameLen    = 128
)

// Role is who spoke.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleSystem    Role = "system"
)

// ParseRole accepts user, assistant or system.
func ParseRole(s string) (Role, error) {
	switch r := Role(strings.ToLower(strings.TrimSpace(s))); r {
	case RoleUser, RoleAssistant, RoleSystem:
		return r, nil
	}
	return "", invalid.FieldValue("role", s, "must be one of user, assistant, system")
}

// Status is where a message stands in extraction.
type Status string

const (
	StatusPending   Status = "PENDING"   // waiting for the debounce or a worker
	StatusProcessed Status = "PROCESSED" // extraction ran; it may have written nothing
	StatusFailed    Status = "FAILED"    // extraction failed; retried with backoff
	StatusSkipped   Status = "SKIPPED"   // not a source of facts, or nothing worth keeping
)

// Message is one stored message of a conversation.
type Message struct {
	ID             string
	Scope          memory.Scope
	ConversationID string
	Role           Role
	Name           string // the speaker's name, when the client gives one
	Content        string
	CreatedAt      time.Time // when it was said (client's time if given)
	ReceivedAt     time.Time // when engram stored it

	Status       Status
	SkipReason   string
	Attempts     int
	Error        string
	ProcessAfter time.Time // not before this time (debounce, backoff)
	ProcessedAt  time.Time
}

// ValidateID checks a client-chosen id (conversation or message): 1–128 characters,
// no control characters.
func ValidateID(field, id string) error {
	return memory.ValidateUserID(field, id)
}

// ValidateContent checks message text: not blank, at most MaxContentLen characters.
func ValidateContent(content string) error {
	if strings.TrimSpace(content) == "" {
		return invalid.Field("content", "must not be empty")
	}
	if !utf8.ValidString(content) {
		return invalid.Field("content", "must be valid UTF-8")
	}
	if n := utf8.RuneCountInString(content); n > MaxContentLen {
		return invalid.Field("content", "must be at most %d characters, got %d", MaxContentLen, n)
	}
	return nil
}

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

	"engram/domain/clip"
	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/domain/retry"
)

// Limits on what a client may post.
const (
	MaxContentLen = 32000 // characters; long pastes belong in a knowledge base
	MaxIDLen      = 128
	MaxNameLen    = 128
	MaxErrorLen   = 1000 // characters of a failure kept on the message
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

// Statuses lists every status in a stable order (metrics pre-register them).
var Statuses = []Status{StatusPending, StatusProcessed, StatusFailed, StatusSkipped}

// Message is one stored message of a conversation.
type Message struct {
	ID             string // the client's message_id, unique per tenant and user
	Seq            string // the store's order of arrival (a ULID); breaks ties of CreatedAt
	Scope          memory.Scope
	ConversationID string
	Role           Role
	Name           string // the speaker's name, when the client gives one
	Content        string
	CreatedAt      time.Time // when it was said (client's time if given)
	ReceivedAt     time.Time // when engram stored it
	// Attributes are the agent, app and run the message was said in and the
	// client's metadata; extraction copies them onto the memories it writes.
	Attributes memory.Attributes

	Status       Status
	SkipReason   string // why it (SKIPPED), or a part of it (PROCESSED), was not extracted
	Attempts     int
	Error        string
	ProcessAfter time.Time // not before this time (debounce, backoff); zero: never again
	ProcessedAt  time.Time
}

// Input is a message as a client posts it. MessageID and CreatedAt are optional.
type Input struct {
	ConversationID string
	MessageID      string
	Role           string
	Name           string
	Content        string
	CreatedAt      time.Time
	Attributes     memory.AttributesInput
}

// New validates a posted message and builds it as stored. seq is the store's
// arrival id, also the message id when the client sent none. A user message waits
// for the debounce; any other role is stored SKIPPED at once, because it is
// context, not a source of facts.
func New(scope memory.Scope, in Input, seq string, now time.Time, debounce time.Duration) (Message, error) {
	var errs []error
	errs = append(errs, ValidateID("conversation_id", in.ConversationID))
	id := in.MessageID
	if id == "" {
		id = seq
	} else {
		errs = append(errs, ValidateID("message_id", id))
	}
	role, err := ParseRole(in.Role)
	errs = append(errs, err)
	name := strings.TrimSpace(in.Name)
	errs = append(errs, validateName(name))
	errs = append(errs, ValidateContent(in.Content))
	if !in.CreatedAt.IsZero() {
		errs = append(errs, ValidateSaidAt("created_at", in.CreatedAt, now))
	}
	attrs, err := memory.ParseAttributes(in.Attributes)
	errs = append(errs, err)
	if err := invalid.Join(errs...); err != nil {
		return Message{}, err
	}
	created := in.CreatedAt
	if created.IsZero() {
		created = now
	}
	m := Message{
		ID:             id,
		Seq:            seq,
		Scope:          scope,
		ConversationID: in.ConversationID,
		Role:           role,
		Name:           name,
		Content:        in.Content,
		CreatedAt:      created.UTC(),
		ReceivedAt:     now.UTC(),
		Attributes:     attrs,
		Status:         StatusPending,
		ProcessAfter:   now.UTC().Add(max(debounce, 0)),
	}
	if role != RoleUser {
		m.Status = StatusSkipped
		m.SkipReason = SkipNotFromUser
		m.ProcessAfter = time.Time{}
		m.ProcessedAt = m.ReceivedAt
	}
	return m, nil
}

// SameAs reports whether other is the same post as m: a client repeating a
// message_id (a retry) sends the same conversation, role, name and content. The
// times may differ (a retry without created_at is received later).
func (m Message) SameAs(other Message) bool {
	return m.ConversationID == other.ConversationID && m.Role == other.Role &&
		m.Name == other.Name && m.Content == other.Content
}

// DateLayout is how a message's date joins its indexed text: questions name months
// and years ("What did Melanie do in May 2023?"), and the measured method appends
// the date this way (docs/BENCHMARKS.md, ablation row 2b).
const DateLayout = "2 January 2006"

// IndexText is the text a message is indexed by, lexically and as a vector: the
// speaker's name (when the client gave one), the content, and the date it was said.
// An image caption or other attachment text belongs in the content.
func (m Message) IndexText() string {
	text := m.Content
	if m.Name != "" {
		text = m.Name + ": " + text
	}
	return text + " " + m.CreatedAt.UTC().Format(DateLayout)
}

// IsUser reports whether the message is a possible source of facts.
func (m Message) IsUser() bool { return m.Role == RoleUser }

// Skipped records that the pipeline found nothing worth an extraction (reason is
// machine-readable, e.g. "greeting").
func (m Message) Skipped(reason string, now time.Time) Message {
	m.Status = StatusSkipped
	m.SkipReason = reason
	m.Attempts++
	m.Error = ""
	m.ProcessAfter = time.Time{}
	m.ProcessedAt = now.UTC()
	return m
}

// Processed records a successful extraction, whatever it wrote.
func (m Message) Processed(now time.Time) Message {
	m.Status = StatusProcessed
	m.SkipReason = ""
	m.Attempts++
	m.Error = ""
	m.ProcessAfter = time.Time{}
	m.ProcessedAt = now.UTC()
	return m
}

// ProcessedExcept records a successful extraction that left part of the message out
// as not a source of facts, with the reason (e.g. "instruction_like:override").
func (m Message) ProcessedExcept(reason string, now time.Time) Message {
	m = m.Processed(now)
	m.SkipReason = reason
	return m
}

// Failed records a failed attempt. The message is retried after the policy's
// backoff (zero fields of p take DefaultRetry's), unless it has used up its attempts: then it stays FAILED for good (no
// ProcessAfter) and only an operator brings it back.
func (m Message) Failed(reason string, now time.Time, p retry.Policy) Message {
	p = p.Or(DefaultRetry)
	m.Status = StatusFailed
	m.SkipReason = ""
	m.Attempts++
	m.Error = clip.Runes(strings.TrimSpace(reason), MaxErrorLen)
	m.ProcessedAt = now.UTC()
	m.ProcessAfter = time.Time{}
	if p.Retries(m.Attempts) {
		m.ProcessAfter = now.UTC().Add(p.Delay(m.Attempts))
	}
	return m
}

// WillRetry reports whether a FAILED message will be tried again.
func (m Message) WillRetry() bool { return m.Status == StatusFailed && !m.ProcessAfter.IsZero() }

// DefaultRetry is the backoff of failed extractions (30 s, 1 min, 2 min, 4 min …,
// at most an hour; LONG_TERM_MEMORY_MAX_ATTEMPTS is 5 in configs/engram.yaml).
var DefaultRetry = retry.Policy{MaxAttempts: 5, BaseDelay: 30 * time.Second, MaxDelay: time.Hour}

// Bounds of the time a message was said: a client's clock may run a little ahead,
// never a day; nothing was said to engram before the Unix epoch (year 1 and 2999
// are client bugs that would sort a conversation wrongly for ever).
const MaxClockSkew = 24 * time.Hour

// Epoch is the earliest time a message may have been said.
var Epoch = time.Unix(0, 0).UTC()

// ValidateSaidAt checks a time a client says something happened at: not before
// 1970, not more than a day after now. Go's zero time is year 1, so it is refused
// too: a client that sends 0001-01-01T00:00:00Z explicitly must hear so, even though
// Input reads a zero CreatedAt as "not given".
func ValidateSaidAt(field string, at, now time.Time) error {
	switch {
	case at.Before(Epoch):
		return invalid.FieldValue(field, at.Format(time.RFC3339Nano), "must not be before %s", Epoch.Format(time.RFC3339))
	case at.After(now.Add(MaxClockSkew)):
		return invalid.FieldValue(field, at.Format(time.RFC3339Nano),
			"must not be more than a day ahead of the server's clock (now %s)", now.UTC().Format(time.RFC3339))
	}
	return nil
}

func validateName(name string) error {
	if n := utf8.RuneCountInString(name); n > MaxNameLen {
		return invalid.Field("name", "must be at most %d characters, got %d", MaxNameLen, n)
	}
	if !utf8.ValidString(name) || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return invalid.Field("name", "must be valid UTF-8 without control characters")
	}
	return nil
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
	if strings.IndexByte(content, 0) >= 0 {
		return invalid.Field("content", "must not contain NUL (U+0000) characters")
	}
	if n := utf8.RuneCountInString(content); n > MaxContentLen {
		return invalid.Field("content", "must be at most %d characters, got %d", MaxContentLen, n)
	}
	return nil
}

// Before reports whether a comes before b in its conversation: by the time it was
// said, then by arrival.
func Before(a, b Message) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.Before(b.CreatedAt)
	}
	return a.Seq < b.Seq
}

package session

import (
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"engram/domain/conversation"
	"engram/domain/invalid"
	"engram/domain/memory"
)

// MaxFlowNameLen bounds a flow's display name.
const MaxFlowNameLen = 128

// ExchangeInput is one turn as an agent records it after the flow ran.
type ExchangeInput struct {
	// ExchangeID is optional: a client that sends one may retry the call without
	// recording the turn twice.
	ExchangeID       string
	FlowName         string
	UserMessage      string
	AssistantMessage string
}

// Exchange is a validated turn: the user's message and the assistant's answer.
type Exchange struct {
	Ref       Ref
	ID        string
	FlowName  string
	User      string
	Assistant string
	At        time.Time // UTC to the microsecond, what every store keeps
}

// NewExchange validates a recorded turn. generatedID is the exchange id when the
// client sent none. Every field problem is reported at once.
func NewExchange(ref Ref, in ExchangeInput, generatedID string, now time.Time) (Exchange, error) {
	id := in.ExchangeID
	var errs []error
	if id == "" {
		id = generatedID
	} else {
		errs = append(errs, memory.ValidateUserID("exchange_id", id))
	}
	name := strings.TrimSpace(in.FlowName)
	if n := utf8.RuneCountInString(name); n > MaxFlowNameLen {
		errs = append(errs, invalid.Field("flow_name", "must be at most %d characters, got %d", MaxFlowNameLen, n))
	} else if strings.ContainsRune(name, 0) || !utf8.ValidString(name) {
		errs = append(errs, invalid.Field("flow_name", "must be valid UTF-8 without NUL characters"))
	}
	errs = append(errs, validateText("user_message", in.UserMessage), validateText("assistant_message", in.AssistantMessage))
	if err := invalid.Join(errs...); err != nil {
		return Exchange{}, err
	}
	return Exchange{
		Ref: ref, ID: id, FlowName: name,
		User: in.UserMessage, Assistant: in.AssistantMessage,
		At: now.UTC().Truncate(time.Microsecond),
	}, nil
}

// validateText applies the rules of message content under the field's own name,
// and refuses NUL characters, which no store keeps faithfully.
func validateText(field, text string) error {
	err := conversation.ValidateContent(text)
	var ve *invalid.Error
	if errors.As(err, &ve) {
		f := ve.Fields[0]
		return invalid.Field(field, "%s", f.Problem)
	}
	if err != nil {
		return err
	}
	if strings.ContainsRune(text, 0) {
		return invalid.Field(field, "must not contain NUL characters")
	}
	return nil
}

// Messages are the two messages the exchange adds to its session, user first.
// Their ids derive from the exchange id, so a retry writes the same ids.
func (x Exchange) Messages() []Message {
	return []Message{
		{ID: x.ID + "/user", ExchangeID: x.ID, Role: conversation.RoleUser, Content: x.User, At: x.At},
		{ID: x.ID + "/assistant", ExchangeID: x.ID, Role: conversation.RoleAssistant, Content: x.Assistant, At: x.At},
	}
}

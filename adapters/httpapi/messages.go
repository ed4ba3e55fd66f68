package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"engram/app/messages"
	"engram/domain/conversation"
	"engram/domain/invalid"
)

// PostMessageRequest is one message of a conversation (README "Conversations").
type PostMessageRequest struct {
	ConversationID string     `json:"conversation_id" minLength:"1" maxLength:"128" doc:"The client's id of the conversation."`
	MessageID      string     `json:"message_id,omitempty" maxLength:"128" doc:"The client's id of the message; posting it again is idempotent. Generated (a ULID) when absent."`
	Role           string     `json:"role" enum:"user,assistant,system" doc:"Only user messages are a source of facts; the others are kept as context and episodic memory."`
	Name           string     `json:"name,omitempty" maxLength:"128" doc:"The speaker's name."`
	Content        string     `json:"content" minLength:"1" maxLength:"32000" doc:"The message's text."`
	CreatedAt      *time.Time `json:"created_at,omitempty" doc:"When it was said; default: when engram received it."`
	// The memories extracted from the message carry its agent, app and run ids
	// and its metadata.
	AttributesRequest
}

// PostedMessage says what became of a posted message.
type PostedMessage struct {
	MessageID  string `json:"message_id"`
	Status     string `json:"status" enum:"PENDING,PROCESSED,FAILED,SKIPPED"`
	SkipReason string `json:"skip_reason,omitempty" doc:"The stored message's skip_reason (see GET /v1/users/{user}/messages/{message_id}): why it taught nothing, or what of it waits."`
	Created    bool   `json:"created" doc:"False when the message_id was already stored: the stored message is reported, unchanged."`
}

type postMessageInput struct {
	UserPath
	Body PostMessageRequest
}

type postMessageOutput struct {
	Status int
	Body   PostedMessage
}

// PostMessagesRequest is a batch of messages of one user.
type PostMessagesRequest struct {
	Messages []PostMessageRequest `json:"messages" minItems:"1" maxItems:"500" doc:"1 to 500 messages, stored together or not at all."`
}

// PostedMessages is a batch's outcome, in the request's order.
type PostedMessages struct {
	Items []PostedMessage `json:"items"`
}

type postMessagesInput struct {
	UserPath
	Body PostMessagesRequest
}

type postMessagesOutput struct {
	Body PostedMessages
}

type messagePath struct {
	UserPath
	MessageID string `path:"message_id" minLength:"1" maxLength:"128" doc:"The message_id the message was posted with (or the one engram generated)."`
}

// MessageItem is a stored message with its extraction state (what a listing shows).
type MessageItem struct {
	MessageID      string     `json:"message_id"`
	ConversationID string     `json:"conversation_id"`
	Role           string     `json:"role" enum:"user,assistant,system"`
	Name           string     `json:"name,omitempty"`
	Content        string     `json:"content"`
	CreatedAt      time.Time  `json:"created_at"`
	ReceivedAt     time.Time  `json:"received_at"`
	Status         string     `json:"status" enum:"PENDING,PROCESSED,FAILED,SKIPPED"`
	SkipReason     string     `json:"skip_reason,omitempty" doc:"Why it taught nothing, or why part of it was not learned; empty when every part of it became its memory events. Before extraction: not_from_user, empty_message, too_short, greeting, thanks, acknowledgement, farewell, question, command, nothing_about_the_user. After it: no_fact (nothing lasting about the user in it), duplicate (all it says is already remembered), secret (SKIPPED: it holds a secret or an identity number, as given or masked; nothing is learned from it), instruction_like:<rule> (it, or part of it, tried to instruct the assistant: SKIPPED when nothing was taken from it, PROCESSED when a clean part was), routed_to_profile (PROCESSED: it set an identity slot of the profile, nickname, AI name, emoji…), deferred (PENDING: part of it is over the per-message write limit LONG_TERM_MEMORY_MAX_WRITE_ITEMS and is written by the next run, or the model is rate-limited or over budget; error says which)."`
	Attempts       int        `json:"attempts"`
	Error          string     `json:"error,omitempty" doc:"The last extraction failure, or why a PENDING message waits (the tenant's LLM budget, the endpoint's rate limit)."`
	ProcessAfter   *time.Time `json:"process_after" nullable:"true" doc:"The next extraction is not before this; null when none is planned."`
	ProcessedAt    *time.Time `json:"processed_at" nullable:"true"`
	AttributesResponse
}

// Message is a stored message with its extraction state and what it caused.
type Message struct {
	MessageItem
	Events []MemoryEvent `json:"events" doc:"The memory events this message caused, oldest first."`
}

type messageOutput struct {
	Body Message
}

// Messages is what the message operations need.
type Messages interface {
	Post(ctx context.Context, cmd messages.Post) (messages.Posted, error)
	PostBatch(ctx context.Context, cmd messages.PostBatch) ([]messages.Posted, error)
	Get(ctx context.Context, q messages.Get) (messages.View, error)
}

// RegisterMessages adds the conversation message routes.
func RegisterMessages(api *API, svc Messages) {
	log := api.opts.Logger
	tags := []string{"messages"}
	describeTag(api.Root, "messages", "Conversation messages: the extraction channel and episodic memory. "+
		"User messages are mined for facts after the debounce; every message is searchable.")
	register(api, huma.Operation{
		OperationID: "message_post", Method: http.MethodPost, Path: "/users/{user}/messages",
		Summary: "Post a conversation message", Tags: tags, DefaultStatus: http.StatusAccepted,
		Description: "Stored durably before the answer. 202 when new; 200 when the message_id was already stored " +
			"(the stored message, unchanged); 409 when that message_id holds other content. User messages are " +
			"extracted after LONG_TERM_MEMORY_DEBOUNCE_SEC, pushed back by later messages of the conversation.",
		Responses: map[string]*huma.Response{"200": {Description: "Already stored"}},
		Errors:    []int{http.StatusBadRequest, http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity},
	}, func(ctx context.Context, in *postMessageInput) (*postMessageOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		msg, err := toInput(in.Body)
		if err != nil {
			return nil, problem(ctx, log, err, "body")
		}
		res, err := svc.Post(ctx, messages.Post{Scope: sc, Message: msg})
		if err != nil {
			return nil, problem(ctx, log, err, "body")
		}
		status := http.StatusAccepted
		if !res.Created {
			status = http.StatusOK
		}
		return &postMessageOutput{Status: status, Body: fromPosted(res)}, nil
	})

	register(api, huma.Operation{
		OperationID: "message_post_batch", Method: http.MethodPost, Path: "/users/{user}/messages:batch",
		// A batch carries up to 500 messages: eight times the single-request limit.
		MaxBodyBytes: 8 * api.opts.MaxBodyBytes,
		Summary:      "Post up to 500 messages", Tags: tags, DefaultStatus: http.StatusAccepted,
		Description: "All or nothing, in one transaction; items follow the request's order. Repeated message_ids " +
			"report the stored message (created false); one that holds other content refuses the batch with 409.",
		Errors: []int{http.StatusBadRequest, http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity},
	}, func(ctx context.Context, in *postMessagesInput) (*postMessagesOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		inputs := make([]conversation.Input, len(in.Body.Messages))
		for i, m := range in.Body.Messages {
			if inputs[i], err = toInput(m); err != nil {
				return nil, problem(ctx, log, invalid.Prefix(fmt.Sprintf("messages[%d]", i), err), "body")
			}
		}
		res, err := svc.PostBatch(ctx, messages.PostBatch{Scope: sc, Messages: inputs})
		if err != nil {
			return nil, problem(ctx, log, err, "body")
		}
		out := &postMessagesOutput{Body: PostedMessages{Items: make([]PostedMessage, len(res))}}
		for i, r := range res {
			out.Body.Items[i] = fromPosted(r)
		}
		return out, nil
	})

	register(api, huma.Operation{
		OperationID: "message_get", Method: http.MethodGet, Path: "/users/{user}/messages/{message_id}",
		Summary: "Read a message, its extraction status and the memory events it caused", Tags: tags,
		Description: "The stored message with its status (PENDING, PROCESSED, FAILED, SKIPPED), attempts, last " +
			"error and the memory events whose source it is, oldest first.",
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, func(ctx context.Context, in *messagePath) (*messageOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		v, err := svc.Get(ctx, messages.Get{Scope: sc, MessageID: in.MessageID})
		if err != nil {
			return nil, problem(ctx, log, err, "path")
		}
		return &messageOutput{Body: fromView(v)}, nil
	})
}

func fromMessage(m conversation.Message) MessageItem {
	return MessageItem{
		MessageID: m.ID, ConversationID: m.ConversationID, Role: string(m.Role), Name: m.Name, Content: m.Content,
		CreatedAt: m.CreatedAt.UTC(), ReceivedAt: m.ReceivedAt.UTC(), Status: string(m.Status), SkipReason: m.SkipReason,
		Attempts: m.Attempts, Error: m.Error, ProcessAfter: timePtr(m.ProcessAfter), ProcessedAt: timePtr(m.ProcessedAt),
		AttributesResponse: fromAttributes(m.Attributes),
	}
}

func toInput(m PostMessageRequest) (conversation.Input, error) {
	in := conversation.Input{ConversationID: m.ConversationID, MessageID: m.MessageID, Role: m.Role, Name: m.Name, Content: m.Content}
	in.Attributes = m.AttributesRequest.input()
	if m.CreatedAt != nil {
		if m.CreatedAt.IsZero() {
			// 0001-01-01T00:00:00Z is Go's zero time, which Input reads as "not given".
			return in, conversation.ValidateSaidAt("created_at", *m.CreatedAt, time.Now())
		}
		in.CreatedAt = *m.CreatedAt
	}
	return in, nil
}

func fromPosted(p messages.Posted) PostedMessage {
	return PostedMessage{MessageID: p.Message.ID, Status: string(p.Message.Status), SkipReason: p.Message.SkipReason, Created: p.Created}
}

func fromView(v messages.View) Message {
	out := Message{MessageItem: fromMessage(v.Message), Events: make([]MemoryEvent, 0, len(v.Events))}
	for _, e := range v.Events {
		out.Events = append(out.Events, fromEvent(e))
	}
	return out
}

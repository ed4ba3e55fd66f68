package mem0api

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"engram/app/adds"
	"engram/app/memories"
	"engram/app/messages"
	"engram/domain/addevent"
	"engram/domain/conversation"
	"engram/domain/memory"
)

// mem0EntityJSON are the ids mem0 scopes a memory by.
type mem0EntityJSON struct {
	UserID  string `json:"user_id,omitempty" doc:"The user the memories belong to (an engram user id)."`
	AgentID string `json:"agent_id,omitempty" doc:"The agent the add is about."`
	AppID   string `json:"app_id,omitempty" doc:"The app the add is about."`
	RunID   string `json:"run_id,omitempty" doc:"The run (conversation) the messages belong to."`
}

// mem0AddBody is an add as every client generation sends it.
type mem0AddBody struct {
	Messages json.RawMessage `json:"messages" doc:"The messages: a list of {role, content}, or one string (a user message)."`
	mem0EntityJSON
	Metadata       json.RawMessage `json:"metadata,omitempty" doc:"A JSON object (at most 16 KB) copied onto every memory the add writes."`
	Infer          *bool           `json:"infer,omitempty" doc:"false: store each message as a memory as given; default true: extract memories from the messages."`
	AsyncMode      *bool           `json:"async_mode,omitempty" doc:"false: wait for the extraction (up to 10 s) and answer its results."`
	OutputFormat   string          `json:"output_format,omitempty" doc:"v1.1: the legacy route answers {results}; otherwise a list."`
	ExpirationDate string          `json:"expiration_date,omitempty" doc:"YYYY-MM-DD: the memories expire then."`
}

// mem0AddJSON is what an add answers.
type mem0AddJSON struct {
	Status  string           `json:"status" doc:"PENDING while the extraction runs, then SUCCEEDED or FAILED."`
	EventID string           `json:"event_id,omitempty" doc:"The add's event: GET /v1/event/{event_id}/ follows it."`
	Message string           `json:"message,omitempty" doc:"What happens next."`
	Results []mem0ResultJSON `json:"results,omitempty" doc:"The memories written, once known."`
}

// wireMessage is one message of an add.
type wireMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Name    string          `json:"name,omitempty"`
}

func parseMessages(raw json.RawMessage) ([]conversation.Input, error) {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return []conversation.Input{{Role: string(conversation.RoleUser), Content: text}}, nil
	}
	var list []wireMessage
	if err := json.Unmarshal(raw, &list); err != nil || len(list) == 0 {
		return nil, badRequest("messages must be a non-empty list of {\"role\": \"user\", \"content\": \"…\"}, or a string")
	}
	out := make([]conversation.Input, len(list))
	for i, m := range list {
		if json.Unmarshal(m.Content, &text) != nil {
			return nil, badRequest("messages[" + itoa(i) + "].content must be text: engram stores the text of a conversation, not images or files")
		}
		out[i] = conversation.Input{Role: m.Role, Name: m.Name, Content: text}
	}
	return out, nil
}

// add is POST /v3/memories/add/.
func (h *Handler) add(c call) (any, error) {
	var body mem0AddBody
	if err := h.decode(c, &body); err != nil {
		return nil, err
	}
	return h.addFrom(c, body)
}

// addV1 is the legacy POST /v1/memories/: a list of results (or of the one
// PENDING event), or {results} with output_format v1.1.
func (h *Handler) addV1(c call) (any, error) {
	var body mem0AddBody
	if err := h.decode(c, &body); err != nil {
		return nil, err
	}
	out, err := h.addFrom(c, body)
	if err != nil {
		return nil, err
	}
	if out.Status == "PENDING" {
		return []mem0AddJSON{out}, nil
	}
	results := out.Results
	if results == nil {
		results = []mem0ResultJSON{}
	}
	if body.OutputFormat == "v1.1" {
		return map[string]any{"results": results}, nil
	}
	return results, nil
}

func (h *Handler) addFrom(c call, body mem0AddBody) (mem0AddJSON, error) {
	if body.UserID == "" {
		return mem0AddJSON{}, badRequest("user_id is required: engram keeps every memory for a user; name the user the messages are about")
	}
	scope, err := h.scope(c, body.UserID)
	if err != nil {
		return mem0AddJSON{}, err
	}
	msgs, err := parseMessages(body.Messages)
	if err != nil {
		return mem0AddJSON{}, err
	}
	ttl, err := ttlUntil(body.ExpirationDate, h.deps.Clock.Now())
	if err != nil {
		return mem0AddJSON{}, err
	}
	attrs := attributesOf(body.mem0EntityJSON, body.Metadata)
	if body.Infer != nil && !*body.Infer {
		return h.storeAsGiven(c.ctx(), scope, msgs, ttl, attrs)
	}
	for i := range msgs {
		msgs[i].Attributes = attrs
	}
	out, err := h.postForExtraction(c.ctx(), scope, body.RunID, msgs)
	if err != nil || body.AsyncMode == nil || *body.AsyncMode {
		return out, err
	}
	return h.awaitExtraction(c.ctx(), scope, out.EventID)
}

// storeAsGiven writes each user and assistant message as a memory (infer:false),
// and records the add as done with what it wrote.
func (h *Handler) storeAsGiven(ctx context.Context, scope memory.Scope, msgs []conversation.Input, ttl *int, attrs memory.AttributesInput) (mem0AddJSON, error) {
	results := []addevent.Result{}
	for i, m := range msgs {
		if strings.EqualFold(m.Role, string(conversation.RoleSystem)) || strings.TrimSpace(m.Content) == "" {
			continue
		}
		if err := memory.ValidateContent("messages["+itoa(i)+"].content", m.Content); err != nil {
			return mem0AddJSON{}, err
		}
		saved, err := h.deps.Memories.Save(ctx, memories.Save{Scope: scope, Key: strings.ToLower(h.newID()),
			Draft: memory.DraftInput{Type: string(memory.TypeFact), Content: m.Content, TTLDays: ttl, Attributes: attrs}})
		if err != nil {
			return mem0AddJSON{}, err
		}
		results = append(results, addevent.Result{MemoryID: saved.Memory.ID(), Change: addevent.ChangeAdd, Memory: saved.Memory.State()})
	}
	rec, err := h.deps.Adds.Done(ctx, adds.Done{Scope: scope, Results: results})
	if err != nil {
		return mem0AddJSON{}, err
	}
	return mem0AddJSON{Status: string(rec.Status), EventID: rec.ID, Results: toResultsJSON(rec.Results)}, nil
}

// postForExtraction posts the messages as one batch of the run's conversation
// (a new one without a run), due for extraction at once.
func (h *Handler) postForExtraction(ctx context.Context, scope memory.Scope, runID string, msgs []conversation.Input) (mem0AddJSON, error) {
	batch := strings.ToLower(h.newID())
	conv := runID
	if conv == "" {
		conv = "mem0-" + batch
	}
	ids := make([]string, len(msgs))
	for i := range msgs {
		ids[i] = messageID(batch, i)
		msgs[i].ConversationID, msgs[i].MessageID = conv, ids[i]
	}
	if _, err := h.deps.Messages.PostBatch(ctx, messages.PostBatch{Scope: scope, Messages: msgs, Immediate: true}); err != nil {
		return mem0AddJSON{}, err
	}
	rec, err := h.deps.Adds.Begin(ctx, adds.Begin{Scope: scope, ConversationID: conv, MessageIDs: ids})
	if err != nil {
		return mem0AddJSON{}, err
	}
	return mem0AddJSON{Status: string(rec.Status), EventID: rec.ID,
		Message: "Memory processing has been queued for background execution"}, nil
}

// awaitExtraction waits, up to SyncWait, for the add's messages to leave
// PENDING, and answers the event as it then is.
func (h *Handler) awaitExtraction(ctx context.Context, scope memory.Scope, id string) (mem0AddJSON, error) {
	deadline := time.Now().Add(h.opts.SyncWait)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		rec, err := h.deps.Adds.Get(ctx, adds.Get{Tenant: scope.Tenant, ID: id})
		if err != nil {
			return mem0AddJSON{}, err
		}
		if rec.Done() || time.Now().After(deadline) {
			return mem0AddJSON{Status: string(rec.Status), EventID: id, Results: toResultsJSON(rec.Results)}, nil
		}
		select {
		case <-ctx.Done():
			return mem0AddJSON{}, ctx.Err()
		case <-tick.C:
		}
	}
}

// ttlUntil is the lifetime, in whole days from now, that ends on the date.
func ttlUntil(date string, now time.Time) (*int, error) {
	if date == "" {
		return nil, nil
	}
	t, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return nil, badRequest("expiration_date must be a date such as 2026-12-31")
	}
	days := int(t.Sub(now).Hours()/24) + 1
	if days < 1 {
		return nil, badRequest("expiration_date must be in the future")
	}
	return &days, nil
}

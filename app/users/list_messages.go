package users

import (
	"context"
	"encoding/base64"
	"slices"
	"strings"
	"time"

	"engram/domain/conversation"
	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/ports"
)

// ListMessages is GET /v1/users/{user}/messages.
type ListMessages struct {
	Scope          memory.Scope
	ConversationID string
	Status         string    // PENDING, PROCESSED, FAILED or SKIPPED; empty: all
	Since, Until   time.Time // when said: since inclusive, until exclusive
	Limit          int       // 0: DefaultLimit
	Cursor         string
}

// MessagePage is one page of a user's messages, oldest first.
type MessagePage struct {
	Items      []conversation.Message
	NextCursor string
}

// ListMessages pages through the user's stored messages in the order they were
// said (then arrival).
func (s *Service) ListMessages(ctx context.Context, q ListMessages) (MessagePage, error) {
	query, err := parseMessageQuery(q)
	if err != nil {
		return MessagePage{}, err
	}
	page, err := s.messages.ListMessages(ctx, q.Scope, query)
	if err != nil {
		return MessagePage{}, err
	}
	out := MessagePage{Items: page.Items}
	if page.More && len(page.Items) > 0 {
		last := page.Items[len(page.Items)-1]
		out.NextCursor = encodeMessageCursor(ports.MessageCursor{CreatedAt: last.CreatedAt, Seq: last.Seq})
	}
	return out, nil
}

func parseMessageQuery(q ListMessages) (ports.MessageQuery, error) {
	limit, err := pageLimit(q.Limit)
	errs := []error{err}
	out := ports.MessageQuery{ConversationID: q.ConversationID, Since: q.Since, Until: q.Until, Limit: limit}
	if q.ConversationID != "" {
		errs = append(errs, conversation.ValidateID("conversation_id", q.ConversationID))
	}
	if q.Status != "" {
		status := conversation.Status(strings.ToUpper(strings.TrimSpace(q.Status)))
		if !slices.Contains(conversation.Statuses, status) {
			errs = append(errs, invalid.FieldValue("status", q.Status, "must be one of PENDING, PROCESSED, FAILED, SKIPPED"))
		}
		out.Status = status
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && !q.Since.Before(q.Until) {
		errs = append(errs, invalid.Field("since", "must be before until"))
	}
	if q.Cursor != "" {
		c, err := decodeMessageCursor(q.Cursor)
		errs = append(errs, err)
		out.After = &c
	}
	return out, invalid.Join(errs...)
}

// The message cursor is the position of the page's last message.
func encodeMessageCursor(c ports.MessageCursor) string {
	return base64.RawURLEncoding.EncodeToString([]byte("m:" + c.CreatedAt.UTC().Format(time.RFC3339Nano) + " " + c.Seq))
}

func decodeMessageCursor(s string) (ports.MessageCursor, error) {
	bad := invalid.Field("cursor", "is not a cursor this server issued; pass next_cursor from the previous page unchanged")
	raw, err := base64.RawURLEncoding.DecodeString(s)
	rest, ok := strings.CutPrefix(string(raw), "m:")
	if err != nil || !ok {
		return ports.MessageCursor{}, bad
	}
	at, seq, ok := strings.Cut(rest, " ")
	when, err := time.Parse(time.RFC3339Nano, at)
	if !ok || err != nil || seq == "" || conversation.ValidateID("cursor", seq) != nil {
		return ports.MessageCursor{}, bad
	}
	return ports.MessageCursor{CreatedAt: when, Seq: seq}, nil
}

package sessions

import (
	"context"
	"errors"

	"engram/domain/memory"
	"engram/ports"
)

// Summaries reads the summary of the session a conversation is: record_exchange
// writes a session's turns as the conversation named by the session id, so
// extraction can judge a turn with its session's summary (the summary and recent
// context inform the judgement; only the user's own words become memories).
type Summaries struct {
	Store ports.SessionStore
}

// ConversationSummary is the summary of the most recently active session whose id
// is conversationID; "" when there is none, or it has no summary yet.
func (s Summaries) ConversationSummary(ctx context.Context, scope memory.Scope, conversationID string) (string, error) {
	found, err := s.Store.Sessions(ctx, scope, ports.SessionQuery{SessionID: conversationID, Limit: 1})
	if err != nil || len(found) == 0 {
		return "", err
	}
	v, err := s.Store.Session(ctx, found[0].Ref, 1)
	if errors.Is(err, ports.ErrNotFound) {
		return "", nil
	}
	return v.Summary.Text, err
}

package memstore

import (
	"context"
	"slices"
	"time"

	"engram/domain/conversation"
	"engram/domain/memory"
)

// ConversationSummary counts the user's conversations and says when they last
// spoke, for the profile's total_conversations and last_conversation_at.
func (s *MessageStore) ConversationSummary(_ context.Context, scope memory.Scope) (int, time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	convos := map[string]bool{}
	var last time.Time
	for k, st := range s.byID {
		if k.tenant != scope.Tenant || k.user != scope.User {
			continue
		}
		convos[st.msg.ConversationID] = true
		if st.msg.CreatedAt.After(last) {
			last = st.msg.CreatedAt
		}
	}
	return len(convos), last, nil
}

// RecentUserMessages returns up to limit of the user's own messages said at or
// after since, newest first.
func (s *MessageStore) RecentUserMessages(_ context.Context, scope memory.Scope, since time.Time, limit int) ([]conversation.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []conversation.Message
	for k, st := range s.byID {
		m := st.msg
		if k.tenant == scope.Tenant && k.user == scope.User && m.Role == conversation.RoleUser && !m.CreatedAt.Before(since) {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b conversation.Message) int { return -order(a, b) })
	return out[:min(len(out), max(limit, 0))], nil
}

package bootstrap

import (
	"context"
	"log/slog"

	"go.uber.org/fx"

	"engram/adapters/httpapi"
	"engram/adapters/httpapi/openaiconv"
	"engram/adapters/metrics"
	"engram/adapters/sqlstore"
	appconv "engram/app/agentconv"
	apperasure "engram/app/erasure"
	"engram/app/sessions"
	"engram/bootstrap/config"
	"engram/domain/agentconv"
	"engram/domain/erasure"
	"engram/domain/memory"
	"engram/domain/session"
	"engram/ports"
)

// agentConversationsModule is the OpenAI Conversations API (adapters/httpapi/openaiconv):
// its store, the use cases and routes (built only where the API role asks for
// routes, so with sessions), and the store's share of a user's erasure.
var agentConversationsModule = fx.Module("agent-conversations",
	fx.Provide(
		newAgentConversations,
		AsRoute(agentConversationRoutes),
	),
	AsPurger("agent_conversations", erasure.PhaseTruth, func(s *sqlstore.AgentConversationStore) ports.UserPurger { return s }),
)

type agentConversationsParams struct {
	fx.In
	Store    ports.AgentConversationStore
	Sessions metrics.SessionService
	Eraser   metrics.Eraser
	IDs      ports.IDs
	Clock    ports.Clock
}

func newAgentConversations(p agentConversationsParams) *appconv.Service {
	return appconv.New(appconv.Deps{Store: p.Store, Sessions: conversationSessions{sessions: p.Sessions, eraser: p.Eraser}, IDs: p.IDs, Clock: p.Clock})
}

func agentConversationRoutes(svc *appconv.Service, cfg config.Config, log *slog.Logger) Route {
	return func(api *httpapi.API) {
		h := openaiconv.New(svc, openaiconv.Options{Tenant: httpapi.Tenant, RequestID: httpapi.RequestID,
			MaxBodyBytes: cfg.HTTP.MaxBodyBytes, Logger: log})
		httpapi.MountCompat(api, "openai_conversations", h.Routes(), openaiconv.Refuse)
	}
}

// conversationSessions records a conversation's turns in the session it is
// (record_exchange, in the conversations' flow) and deletes it as a session
// delete does: the whole chat, its stored messages and traces included.
type conversationSessions struct {
	sessions metrics.SessionService
	eraser   metrics.Eraser
}

func (s conversationSessions) Record(ctx context.Context, scope memory.Scope, sessionID string, x agentconv.Exchange) error {
	_, err := s.sessions.Record(ctx, sessions.Record{Scope: scope, SessionID: sessionID, FlowID: agentconv.FlowID,
		Exchange: session.ExchangeInput{ExchangeID: x.ID, FlowName: "OpenAI Conversations API", UserMessage: x.User, AssistantMessage: x.Assistant}})
	return err
}

func (s conversationSessions) Delete(ctx context.Context, scope memory.Scope, sessionID string) error {
	_, err := s.eraser.DeleteSession(ctx, apperasure.DeleteSession{Scope: scope, SessionID: sessionID, FlowID: agentconv.FlowID})
	return err
}

package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"engram/app/sessions"
	"engram/domain/session"
)

// SessionPath is {user} and {session}.
type SessionPath struct {
	UserPath
	Session string `path:"session" minLength:"1" maxLength:"128" doc:"The client's session id (one conversation with a flow)."`
}

// RecordExchangeRequest is one turn of a session: record_exchange.
type RecordExchangeRequest struct {
	FlowID           string `json:"flow_id" minLength:"1" maxLength:"128" doc:"The flow (workflow, agent) the session belongs to; sessions are isolated per user, flow and session."`
	FlowName         string `json:"flow_name,omitempty" maxLength:"128" doc:"The flow's display name, kept in the session's meta."`
	ExchangeID       string `json:"exchange_id,omitempty" maxLength:"128" doc:"Optional id of this turn, unique in the session. A retry with the same exchange_id records nothing twice (200 instead of 202); without it a retry records the turn again."`
	UserMessage      string `json:"user_message" minLength:"1" maxLength:"32000" doc:"What the user said; it also goes to long-term extraction after the debounce."`
	AssistantMessage string `json:"assistant_message" minLength:"1" maxLength:"32000" doc:"What the agent answered."`
}

// RecordedExchange says what became of a turn.
type RecordedExchange struct {
	ExchangeID   string `json:"exchange_id" doc:"The client's exchange_id, or the one engram generated."`
	SessionID    string `json:"session_id"`
	FlowID       string `json:"flow_id"`
	MessageCount int64  `json:"message_count" doc:"Messages recorded in the session so far."`
	Duplicate    bool   `json:"duplicate" doc:"True when the exchange_id was recorded before: nothing was written again."`
}

type recordInput struct {
	SessionPath
	Body RecordExchangeRequest
}

type recordOutput struct {
	Status int
	Body   RecordedExchange
}

// SessionItem is one session of a listing.
type SessionItem struct {
	SessionID    string    `json:"session_id"`
	FlowID       string    `json:"flow_id"`
	FlowName     string    `json:"flow_name"`
	CreatedAt    time.Time `json:"created_at"`
	LastActiveAt time.Time `json:"last_active_at"`
	MessageCount int64     `json:"message_count" doc:"Messages recorded over the session's life, folded and trimmed ones included."`
}

// SessionList is the user's sessions, the most recently active first.
type SessionList struct {
	Items []SessionItem `json:"items"`
}

type listSessionsInput struct {
	UserPath
	Limit int `query:"limit" minimum:"1" maximum:"500" default:"50" doc:"Most sessions to return."`
}

type listSessionsOutput struct {
	Body SessionList
}

// SessionMessage is one message a session holds.
type SessionMessage struct {
	ID         string    `json:"id"`
	ExchangeID string    `json:"exchange_id"`
	Role       string    `json:"role" enum:"user,assistant"`
	Content    string    `json:"content"`
	At         time.Time `json:"at"`
	Seq        int64     `json:"seq" doc:"The message's place in the session, from 1."`
}

// SessionMeta is what a session is. The times are null when only the summary is
// left (the messages and meta expired).
type SessionMeta struct {
	SessionID        string     `json:"session_id"`
	FlowID           string     `json:"flow_id"`
	FlowName         string     `json:"flow_name"`
	CreatedAt        *time.Time `json:"created_at" nullable:"true"`
	LastActiveAt     *time.Time `json:"last_active_at" nullable:"true"`
	MessageCount     int64      `json:"message_count"`
	Held             int        `json:"held" doc:"Messages the session holds now (older ones are folded into the summary or trimmed)."`
	SummaryVersion   int64      `json:"summary_version" doc:"Folds written into the summary; 0: no summary yet."`
	SummaryUpdatedAt *time.Time `json:"summary_updated_at" nullable:"true"`
}

// SessionView is one session: messages oldest first, summary and meta.
type SessionView struct {
	Messages []SessionMessage `json:"messages"`
	Summary  string           `json:"summary" doc:"The recursive summary of the messages folded so far; empty before the first fold."`
	Meta     SessionMeta      `json:"meta"`
}

type getSessionInput struct {
	SessionPath
	FlowID string `query:"flow_id" maxLength:"128" doc:"The session's flow; without it, the most recently active session with this id in any flow."`
	Limit  int    `query:"limit" minimum:"0" maximum:"1000" doc:"The most recent messages to return; 0 (default): every message held."`
}

type getSessionOutput struct {
	Body SessionView
}

// Sessions is what the session operations need.
type Sessions interface {
	Record(ctx context.Context, cmd sessions.Record) (sessions.Recorded, error)
	Get(ctx context.Context, q sessions.Get) (session.View, error)
	List(ctx context.Context, q sessions.List) ([]session.Meta, error)
}

// RegisterSessions adds the short-term session routes.
func RegisterSessions(api *API, svc Sessions) {
	log := api.opts.Logger
	tags := []string{"sessions"}
	describeTag(api.Root, "sessions", "Short-term sessions: each session's recent messages, meta and "+
		"recursive summary, kept in Redis (SQL when Redis is down or not configured).")
	register(api, huma.Operation{
		OperationID: "session_record_exchange", Method: http.MethodPost, Path: "/users/{user}/sessions/{session}/exchanges",
		Summary: "Record a turn (record_exchange)", Tags: tags, DefaultStatus: http.StatusAccepted,
		Description: "Call after the agent answered. 202 once the turn is durable in the session store (Redis, or SQL " +
			"while Redis is down) and its messages are stored for long-term extraction (conversation_id = the session id); " +
			"200 when the exchange_id was recorded before. The session's meta and the user's index are updated; a session " +
			"past ENGRAM_SESSION_SUMMARY_THRESHOLD messages is folded into its summary in the background.",
		Responses: map[string]*huma.Response{"200": {Description: "Already recorded (same exchange_id)"}},
		Errors:    []int{http.StatusBadRequest, http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity, http.StatusServiceUnavailable},
	}, func(ctx context.Context, in *recordInput) (*recordOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		b := in.Body
		res, err := svc.Record(ctx, sessions.Record{Scope: sc, SessionID: in.Session, FlowID: b.FlowID, Exchange: session.ExchangeInput{
			ExchangeID: b.ExchangeID, FlowName: b.FlowName, UserMessage: b.UserMessage, AssistantMessage: b.AssistantMessage}})
		if err != nil {
			return nil, problem(ctx, log, err, "body")
		}
		status := http.StatusAccepted
		if res.Duplicate {
			status = http.StatusOK
		}
		return &recordOutput{Status: status, Body: RecordedExchange{ExchangeID: res.Exchange.ID, SessionID: in.Session,
			FlowID: b.FlowID, MessageCount: res.Meta.MessageCount, Duplicate: res.Duplicate}}, nil
	})

	register(api, huma.Operation{
		OperationID: "session_list", Method: http.MethodGet, Path: "/users/{user}/sessions",
		Summary: "List the user's sessions, the most recently active first", Tags: tags,
		Description: "The user's sessions with live meta, newest activity first, read from the user's session index (no key scans).",
		Errors:      []int{http.StatusUnprocessableEntity, http.StatusServiceUnavailable},
	}, func(ctx context.Context, in *listSessionsInput) (*listSessionsOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		metas, err := svc.List(ctx, sessions.List{Scope: sc, Limit: in.Limit})
		if err != nil {
			return nil, problem(ctx, log, err, "query")
		}
		out := &listSessionsOutput{Body: SessionList{Items: make([]SessionItem, len(metas))}}
		for i, m := range metas {
			out.Body.Items[i] = SessionItem{SessionID: m.Ref.SessionID, FlowID: m.Ref.FlowID, FlowName: m.FlowName,
				CreatedAt: m.CreatedAt.UTC(), LastActiveAt: m.LastActiveAt.UTC(), MessageCount: m.MessageCount}
		}
		return out, nil
	})

	register(api, huma.Operation{
		OperationID: "session_get", Method: http.MethodGet, Path: "/users/{user}/sessions/{session}",
		Summary: "Read a session: its messages (oldest first), summary and meta", Tags: tags,
		Description: "Without flow_id, the most recently active session of this id in any flow. 404 when the session " +
			"has neither live meta nor a summary.",
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity, http.StatusServiceUnavailable},
	}, func(ctx context.Context, in *getSessionInput) (*getSessionOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		v, err := svc.Get(ctx, sessions.Get{Scope: sc, SessionID: in.Session, FlowID: in.FlowID, Limit: in.Limit})
		if err != nil {
			return nil, problem(ctx, log, err, "query")
		}
		return &getSessionOutput{Body: fromSessionView(v)}, nil
	})
}

func fromSessionView(v session.View) SessionView {
	m := v.Meta
	out := SessionView{
		Messages: make([]SessionMessage, len(v.Messages)),
		Summary:  v.Summary.Text,
		Meta: SessionMeta{SessionID: m.Ref.SessionID, FlowID: m.Ref.FlowID, FlowName: m.FlowName,
			CreatedAt: timePtr(m.CreatedAt), LastActiveAt: timePtr(m.LastActiveAt), MessageCount: m.MessageCount, Held: m.Held,
			SummaryVersion: v.Summary.Version, SummaryUpdatedAt: timePtr(v.Summary.UpdatedAt)},
	}
	for i, msg := range v.Messages {
		out.Messages[i] = SessionMessage{ID: msg.ID, ExchangeID: msg.ExchangeID, Role: string(msg.Role), Content: msg.Content,
			At: msg.At.UTC(), Seq: msg.Seq}
	}
	return out
}

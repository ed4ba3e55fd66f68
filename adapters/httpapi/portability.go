package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"engram/app/users"
	"engram/domain/conversation"
	"engram/domain/session"
	"engram/ports"
)

// Portability is what export and import need (app/users).
type Portability interface {
	Export(ctx context.Context, q users.Export) (users.Document, error)
	Import(ctx context.Context, in users.Import) (users.Imported, error)
}

// UserExport is the export document, version 1 (docs/EXPORT.md). Each record is
// one stored row, every column but the store's bookkeeping; times are RFC 3339 in
// UTC to the microsecond.
type UserExport struct {
	Format        string            `json:"format" enum:"engram.user-export" doc:"Always engram.user-export."`
	Version       int               `json:"version" minimum:"1" maximum:"1" doc:"The format's version: 1."`
	User          string            `json:"user" minLength:"1" maxLength:"128" doc:"The user the document is about; an import must name the same user in its path."`
	Memories      []ports.Record    `json:"memories" required:"false" doc:"Long-term memories, active or not, by id."`
	MemoryHistory []ports.Record    `json:"memory_history" required:"false" doc:"Every change of every memory (the memory before and after), by id."`
	Messages      []ports.Record    `json:"messages" required:"false" doc:"Conversation messages with their extraction state, by arrival id."`
	Sessions      []ExportedSession `json:"sessions" required:"false" doc:"Live short-term sessions with their summaries and held messages."`
	Profile       []ports.Record    `json:"profile" required:"false" doc:"The stored profile: none or one."`
	Org           []ports.Record    `json:"org" required:"false" doc:"The user's organisation graph entry: none or one."`
	NameKeys      []ports.Record    `json:"name_keys" required:"false" doc:"The keys name resolution finds the user by."`
	Activity      []ports.Record    `json:"activity" required:"false" doc:"Activity events (tasks, workflow runs), by event id."`
	Reports       []ports.Record    `json:"reports" required:"false" doc:"Evaluation reports about the user, by id."`
	Traces        []ports.Record    `json:"traces" required:"false" doc:"Traces of context calls for the user, within their retention, by id."`
	Audit         []ports.Record    `json:"audit" required:"false" doc:"Audit entries with the user as target or actor (reads of profiles and reports), by id; the log's records of exports and imports are not part of it."`
	// The OpenAI Conversations API's history.
	AgentConversations []ports.Record `json:"agent_conversations" required:"false" doc:"Conversations of the OpenAI Conversations API (/openai/users/{user}/v1), by id."`
	AgentItems         []ports.Record `json:"agent_conversation_items" required:"false" doc:"Their items, each as its client sent it (raw), by conversation and order (seq)."`
	// The mem0-compatible API's record of each add.
	Adds []ports.Record `json:"adds" required:"false" doc:"Adds of the mem0-compatible API (/mem0): the messages each posted, its status and the memory changes it made, by id."`
}

// ExportedSession is one short-term session, whole.
type ExportedSession struct {
	FlowID       string                   `json:"flow_id" minLength:"1" maxLength:"128" doc:"The flow the session belongs to."`
	SessionID    string                   `json:"session_id" minLength:"1" maxLength:"128" doc:"The client's session id."`
	FlowName     string                   `json:"flow_name,omitempty" maxLength:"128" doc:"The flow's display name."`
	CreatedAt    time.Time                `json:"created_at" doc:"When the session began."`
	LastActiveAt time.Time                `json:"last_active_at" doc:"The last exchange."`
	MessageCount int64                    `json:"message_count" minimum:"0" doc:"Messages recorded over the session's life, folded and trimmed ones included."`
	Summary      *ExportedSummary         `json:"summary,omitempty" doc:"Absent when the session has no summary yet."`
	Messages     []ExportedSessionMessage `json:"messages" doc:"The messages the session holds, oldest first."`
	ExchangeIDs  []string                 `json:"exchange_ids" required:"false" doc:"The most recent exchange ids, oldest first: a retried exchange is still recognised after the import."`
}

// ExportedSummary is a session's recursive summary.
type ExportedSummary struct {
	Text      string    `json:"text" doc:"The summary of the folded messages."`
	Version   int64     `json:"version" minimum:"1" doc:"Folds written so far."`
	UpdatedAt time.Time `json:"updated_at" doc:"When the last fold was written."`
}

// ExportedSessionMessage is one message a session holds.
type ExportedSessionMessage struct {
	ID         string    `json:"id" minLength:"1" maxLength:"160" doc:"The message's id in the session (exchange id and role)."`
	ExchangeID string    `json:"exchange_id" minLength:"1" maxLength:"128" doc:"The exchange the message came with."`
	Role       string    `json:"role" enum:"user,assistant" doc:"Who said it."`
	Content    string    `json:"content" doc:"What was said."`
	At         time.Time `json:"at" doc:"When the exchange was recorded."`
	Seq        int64     `json:"seq" minimum:"1" doc:"The message's order in the session, from 1."`
}

// UserImported says what an import wrote, by section; what was stored already
// is kept and not counted.
type UserImported struct {
	User    string         `json:"user" doc:"The user imported."`
	Written map[string]int `json:"written" doc:"Rows written by section (sessions included); 0 everywhere on a repeated import."`
}

type exportInput struct {
	UserPath
	ActingUserHeader
}

type exportOutput struct {
	Body UserExport
}

type importInput struct {
	UserPath
	ActingUserHeader
	Body UserExport
}

type importOutput struct {
	Body UserImported
}

// RegisterPortability adds the export of everything stored about a user and its
// import.
func RegisterPortability(api *API, svc Portability) {
	log := api.opts.Logger
	errs := []int{http.StatusForbidden, refusedWhileErasing, http.StatusUnprocessableEntity}
	register(api, huma.Operation{
		OperationID: "user_export", Method: http.MethodGet, Path: "/users/{user}/export",
		Summary: "Export everything stored about a user", Tags: []string{"users"}, Errors: errs,
		Description: "One JSON document (format engram.user-export, version 1; docs/EXPORT.md): memories with their " +
			"history, messages, sessions with summaries, profile, org entry, name keys, activity, reports, traces and the " +
			"audit entries about the user, with the ids and times they have. X-Acting-User must be the user or a manager " +
			"above them (403 otherwise); every export, and every refused one, is written to the audit log. 409 while the " +
			"user is being erased.",
	}, func(ctx context.Context, in *exportInput) (*exportOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		doc, err := svc.Export(ctx, users.Export{Scope: sc, Actor: in.ActingUser})
		if err != nil {
			return nil, problem(ctx, log, err, "header")
		}
		return &exportOutput{Body: toExport(doc)}, nil
	})

	register(api, huma.Operation{
		OperationID: "user_import", Method: http.MethodPost, Path: "/users/{user}/import",
		Summary: "Import a user's export document", Tags: []string{"users"}, Errors: append(errs, http.StatusRequestEntityTooLarge),
		MaxBodyBytes: 256 << 20,
		Description: "Takes what GET /v1/users/{user}/export gives, from this deployment or another, for the same user: " +
			"every row is stored with its ids and times unless one with its key is stored already, so a repeated import " +
			"writes nothing. The search index is rebuilt for what was written and vectors are computed anew. Authorised " +
			"and audited as the export is. A field the format does not have, or a value of the wrong type, is 422 naming " +
			"it, and nothing is written.",
	}, func(ctx context.Context, in *importInput) (*importOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		res, err := svc.Import(ctx, users.Import{Scope: sc, Actor: in.ActingUser, Document: fromExport(in.Body)})
		if err != nil {
			return nil, problem(ctx, log, err, "body")
		}
		return &importOutput{Body: UserImported{User: sc.User, Written: res.Written}}, nil
	})
}

func toExport(d users.Document) UserExport {
	r := d.Records
	out := UserExport{Format: d.Format, Version: d.Version, User: d.User,
		Memories: list(r[ports.RecordMemories]), MemoryHistory: list(r[ports.RecordMemoryHistory]),
		Messages: list(r[ports.RecordMessages]), Profile: list(r[ports.RecordProfile]), Org: list(r[ports.RecordOrg]),
		NameKeys: list(r[ports.RecordNameKeys]), Activity: list(r[ports.RecordActivity]), Reports: list(r[ports.RecordReports]),
		Traces: list(r[ports.RecordTraces]), Audit: list(r[ports.RecordAudit]),
		AgentConversations: list(r[ports.RecordAgentConversations]), AgentItems: list(r[ports.RecordAgentItems]), Adds: list(r[ports.RecordAdds]),
		Sessions: make([]ExportedSession, 0, len(d.Sessions)),
	}
	for _, st := range d.Sessions {
		out.Sessions = append(out.Sessions, toExportedSession(st))
	}
	return out
}

func list(rs []ports.Record) []ports.Record {
	if rs == nil {
		return []ports.Record{}
	}
	return rs
}

func fromExport(e UserExport) users.Document {
	d := users.Document{Format: e.Format, Version: e.Version, User: e.User, Records: map[string][]ports.Record{
		ports.RecordMemories: e.Memories, ports.RecordMemoryHistory: e.MemoryHistory, ports.RecordMessages: e.Messages,
		ports.RecordProfile: e.Profile, ports.RecordOrg: e.Org, ports.RecordNameKeys: e.NameKeys, ports.RecordActivity: e.Activity,
		ports.RecordReports: e.Reports, ports.RecordTraces: e.Traces, ports.RecordAudit: e.Audit,
		ports.RecordAgentConversations: e.AgentConversations, ports.RecordAgentItems: e.AgentItems, ports.RecordAdds: e.Adds,
	}}
	for _, s := range e.Sessions {
		d.Sessions = append(d.Sessions, fromExportedSession(s))
	}
	return d
}

func toExportedSession(st session.State) ExportedSession {
	m := st.Meta
	out := ExportedSession{FlowID: m.Ref.FlowID, SessionID: m.Ref.SessionID, FlowName: m.FlowName,
		CreatedAt: m.CreatedAt, LastActiveAt: m.LastActiveAt, MessageCount: m.MessageCount,
		Messages: make([]ExportedSessionMessage, 0, len(st.Messages)), ExchangeIDs: append([]string{}, st.ExchangeIDs...)}
	if st.Summary.Version > 0 || st.Summary.Text != "" {
		out.Summary = &ExportedSummary{Text: st.Summary.Text, Version: st.Summary.Version, UpdatedAt: st.Summary.UpdatedAt}
	}
	for _, msg := range st.Messages {
		out.Messages = append(out.Messages, ExportedSessionMessage{ID: msg.ID, ExchangeID: msg.ExchangeID, Role: string(msg.Role),
			Content: msg.Content, At: msg.At, Seq: msg.Seq})
	}
	return out
}

func fromExportedSession(s ExportedSession) session.State {
	st := session.State{View: session.View{Meta: session.Meta{
		Ref: session.Ref{FlowID: s.FlowID, SessionID: s.SessionID}, FlowName: s.FlowName,
		CreatedAt: s.CreatedAt.UTC(), LastActiveAt: s.LastActiveAt.UTC(), MessageCount: s.MessageCount, Held: len(s.Messages),
	}}, ExchangeIDs: s.ExchangeIDs}
	if s.Summary != nil {
		st.Summary = session.Summary{Text: s.Summary.Text, Version: s.Summary.Version, UpdatedAt: s.Summary.UpdatedAt.UTC()}
	}
	for _, m := range s.Messages {
		st.Messages = append(st.Messages, session.Message{ID: m.ID, ExchangeID: m.ExchangeID, Role: conversation.Role(m.Role),
			Content: m.Content, At: m.At.UTC(), Seq: m.Seq})
	}
	return st
}

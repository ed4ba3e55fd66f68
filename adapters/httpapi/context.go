package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"engram/app/contextbuild"
	"engram/domain/memory"
	"engram/domain/promptctx"
)

// ContextRequest is the body of POST /v1/users/{user}/context.
type ContextRequest struct {
	Query       string                `json:"query" minLength:"1" doc:"The question the agent is about to answer. Memories are retrieved for it joined with the session's summary. Any length up to the body limit: beyond ENGRAM_QUERY_MAX_CHARS (default 2000) only its end is retrieved for, and the trace says so (query_truncated)."`
	FlowID      string                `json:"flow_id,omitempty" maxLength:"128" doc:"The session's flow; without it, the most recently active session with session_id in any flow."`
	SessionID   string                `json:"session_id,omitempty" maxLength:"128" doc:"The session the agent runs in: its summary and recent messages are included, and its own past messages are not repeated as episodes. Without it, no session is read."`
	MaxMemories int                   `json:"max_memories,omitempty" minimum:"1" maximum:"100" doc:"Most long-term memories to consider; default LONG_TERM_MEMORY_RETRIEVE_LIMIT."`
	BudgetChars int                   `json:"budget_chars,omitempty" minimum:"1" maximum:"100000" doc:"Hard cap on prompt, in characters (Unicode code points), headers, labels and quote marks included; default ENGRAM_CONTEXT_BUDGET_CHARS. What does not fit is left out (the trace says so), except that the first item of a section may be cut to fit, ending with \"…\"."`
	Include     []string              `json:"include,omitempty" maxItems:"6" enum:"profile,standing,recent,summary,memories,episodes" doc:"The sections wanted; default all of them. standing: the user's standing memories (constraints, memories of importance ENGRAM_CONTEXT_STANDING_MIN_IMPORTANCE or more, pinned ones), injected whatever the question. External items are included whenever they are passed."`
	External    []ExternalItemRequest `json:"external,omitempty" maxItems:"50" doc:"Data the caller brings (knowledge-base chunks, what an MCP tool returned), ranked with the memories and episodes on the same score scale, each keeping its source."`
	// IncludeInstructionLike goes beyond the v1 contract (docs/API-NOTES.md): the
	// configured default leaves instruction-like text out.
	IncludeInstructionLike *bool `json:"include_instruction_like,omitempty" doc:"Inject text that reads as an instruction to the assistant (flagged memories, and any other text the screen flags), quoted like everything else and marked as data; default ENGRAM_CONTEXT_INCLUDE_INSTRUCTION_LIKE (false: left out, reason instruction_like in the trace)."`
}

// ExternalItemRequest is one external item.
type ExternalItemRequest struct {
	Source string   `json:"source" minLength:"1" maxLength:"128" doc:"Where it comes from, e.g. kb:handbook or mcp:crm; shown as its label."`
	Text   string   `json:"text" minLength:"1" maxLength:"8000" doc:"The item's text; quoted as data."`
	Score  *float64 `json:"score,omitempty" minimum:"0" maximum:"1" doc:"Its relevance in [0, 1], on the scale of search scores, used as given; without it the text is scored against the query with search's lexical evidence. Below LONG_TERM_MEMORY_MIN_SCORE it is left out."`
}

type contextInput struct {
	UserPath
	Body ContextRequest
}

// ContextResult is the context call's answer.
type ContextResult struct {
	Sections      ContextSections `json:"sections" doc:"The injected items by section, with their text as injected (cut where prompt cut it)."`
	Prompt        string          `json:"prompt" doc:"The ready block: the header (ENGRAM_CONTEXT_HEADER, default [跨会话记忆]), a notice, the sections, the footer; every stored text quoted after \"> \". Empty when nothing relevant was found or fits."`
	TraceID       string          `json:"trace_id" doc:"The trace of this call (GET /v1/traces/{trace_id}); empty only for a user being erased."`
	InjectedChars int             `json:"injected_chars" doc:"Characters of prompt; never above budget_chars."`
}

// ContextSections are the injected items by section.
type ContextSections struct {
	Profile        string            `json:"profile" doc:"The user's profile as injected (its 用户画像 lines)."`
	Standing       []ContextMemory   `json:"standing" nullable:"false" doc:"The user's standing memories injected whatever the question — constraints, memories of importance ENGRAM_CONTEXT_STANDING_MIN_IMPORTANCE or more, pinned ones — most important first, then the most recent; within ENGRAM_CONTEXT_STANDING_SHARE of the budget. Their score is 1. A standing memory is never repeated among memories."`
	RecentMessages []ContextMessage  `json:"recent_messages" nullable:"false" doc:"The session's most recent messages injected, oldest first."`
	Summary        string            `json:"summary" doc:"The session's recursive summary, when injected."`
	Memories       []ContextMemory   `json:"memories" nullable:"false" doc:"Long-term memories with evidence for the question, best first."`
	Episodes       []ContextEpisode  `json:"episodes" nullable:"false" doc:"Messages of the user's other sessions and past conversations, best first."`
	External       []ContextExternal `json:"external" nullable:"false" doc:"The caller's external items injected, best first."`
}

// ContextMessage is an injected message of the session.
type ContextMessage struct {
	ID         string    `json:"id"`
	ExchangeID string    `json:"exchange_id"`
	Role       string    `json:"role" enum:"user,assistant"`
	Content    string    `json:"content"`
	At         time.Time `json:"at"`
	Truncated  bool      `json:"truncated" doc:"True when the content was cut to fit the budget."`
}

// ContextMemory is an injected memory.
type ContextMemory struct {
	Key       string   `json:"key"`
	Type      string   `json:"type" enum:"preference,fact,goal,project,constraint"`
	Content   string   `json:"content"`
	Score     float64  `json:"score" doc:"Its search score, absolute relevance in [0, 1]."`
	Flags     []string `json:"flags" nullable:"false" doc:"instruction_like when it was injected as data on request (include_instruction_like)."`
	Truncated bool     `json:"truncated"`
}

// ContextEpisode is an injected past message.
type ContextEpisode struct {
	MessageID      string    `json:"message_id"`
	ConversationID string    `json:"conversation_id"`
	Role           string    `json:"role" enum:"user,assistant,system"`
	Name           string    `json:"name,omitempty"`
	Content        string    `json:"content"`
	CreatedAt      time.Time `json:"created_at"`
	Score          float64   `json:"score"`
	Truncated      bool      `json:"truncated"`
}

// ContextExternal is an injected external item.
type ContextExternal struct {
	Source    string  `json:"source"`
	Text      string  `json:"text"`
	Score     float64 `json:"score" doc:"The caller's score, or the text's lexical evidence for the query."`
	Truncated bool    `json:"truncated"`
}

type contextOutput struct {
	Body ContextResult
}

// Trace is one context call explained: what was injected and why the rest was not.
type Trace struct {
	ID                string             `json:"id"`
	UserID            string             `json:"user_id"`
	At                time.Time          `json:"at"`
	Query             string             `json:"query" doc:"What was retrieved for: the query, or its end when it was longer than ENGRAM_QUERY_MAX_CHARS."`
	QueryChars        int                `json:"query_chars" doc:"Characters of the query as asked."`
	QueryTruncated    bool               `json:"query_truncated" doc:"True when the query was longer than ENGRAM_QUERY_MAX_CHARS and only its end was retrieved for."`
	SessionID         string             `json:"session_id,omitempty"`
	FlowID            string             `json:"flow_id,omitempty"`
	ModeUsed          string             `json:"mode_used" doc:"The memory search's mode (auto, dense, lexical, full_inject)."`
	FallbackReason    string             `json:"fallback_reason,omitempty" doc:"Why the search answered lexically, as search's fallback_reason."`
	SourceCount       TraceSourceCount   `json:"source_count" doc:"Items injected, by section."`
	Items             []TraceItem        `json:"items" nullable:"false" doc:"Every injected item, in the order of prompt."`
	RawHits           []TraceRawHit      `json:"raw_hits" nullable:"false" doc:"Every candidate considered, injected (kept) or not, each dropped one with its reason."`
	StandingOverShare int                `json:"standing_over_share" doc:"Standing memories the standing share of the budget (ENGRAM_CONTEXT_STANDING_SHARE) could not hold; each is a raw hit with reason standing_share."`
	Omitted           map[string]int     `json:"omitted" doc:"Candidates the searches found but never read, by reason (their relevance alone ruled them out: below_min_score, limit), which raw_hits does not list."`
	BudgetChars       int                `json:"budget_chars"`
	InjectedChars     int                `json:"injected_chars"`
	TimingsMS         map[string]float64 `json:"timings_ms" doc:"Wall time of each stage in milliseconds: session, standing, profile, memories, episodes, external, pack, total."`
}

// TraceSourceCount counts the injected items by section.
type TraceSourceCount struct {
	Profile  int `json:"profile"`
	Standing int `json:"standing"`
	Summary  int `json:"summary"`
	Recent   int `json:"recent"`
	Memories int `json:"memories"`
	Episodes int `json:"episodes"`
	External int `json:"external"`
}

// TraceItem is one injected item.
type TraceItem struct {
	ID        string  `json:"id" doc:"The memory's key, the message's id, the session message's id, summary, profile:N or external:N."`
	Kind      string  `json:"kind" enum:"memory,message,profile,summary,external"`
	Section   string  `json:"section" enum:"profile,standing,summary,recent,memories,episodes,external"`
	Source    string  `json:"source" doc:"standing (a standing memory, injected whatever the question), memories, messages (past messages), session (summary and recent messages), profile, or the external item's source."`
	Score     float64 `json:"score"`
	Snippet   string  `json:"snippet" doc:"The start of the text injected, on one line; empty once the item was erased (purged)."`
	Truncated bool    `json:"truncated"`
	Purged    bool    `json:"purged,omitempty" doc:"true: what the item quoted was erased since (a purged memory, a deleted message or session); the id says what it was."`
}

// TraceRawHit is one candidate and what became of it.
type TraceRawHit struct {
	ID      string  `json:"id"`
	Kind    string  `json:"kind" enum:"memory,message,profile,summary,external"`
	Section string  `json:"section" enum:"profile,standing,summary,recent,memories,episodes,external"`
	Source  string  `json:"source"`
	Score   float64 `json:"score" doc:"Its score; for one dropped before it was scored, its relevance."`
	Kept    bool    `json:"kept"`
	Reason  string  `json:"reason,omitempty" doc:"Why it was dropped: budget (no room), below_min_score, limit (scored below the best max_memories), duplicate (its text is already in), current_session (a past message of this session: its summary and recent messages stand for it), instruction_like, secret (holds a secret or an identity number, never injected), standing_share (a standing memory over the standing share), unpaired (an answer whose question the session read did not reach), expired, inactive, noise, filtered, empty."`
	Purged  bool    `json:"purged,omitempty" doc:"true: the candidate was erased since."`
}

type traceInput struct {
	TraceID string `path:"trace_id" minLength:"1" maxLength:"64" doc:"The trace_id a context call returned."`
}

type latestTraceInput struct {
	UserPath
}

type traceOutput struct {
	Body Trace
}

// ContextBuilder is what the context operations need.
type ContextBuilder interface {
	Build(ctx context.Context, r contextbuild.Request) (contextbuild.Result, error)
	Trace(ctx context.Context, tenant, id string) (promptctx.Trace, error)
	LatestTrace(ctx context.Context, scope memory.Scope) (promptctx.Trace, error)
	ListTraces(ctx context.Context, scope memory.Scope, before string, limit int) ([]promptctx.Trace, error)
}

// RegisterContext adds the context call and its traces.
func RegisterContext(api *API, svc ContextBuilder) {
	log := api.opts.Logger
	tags := []string{"context"}
	describeTag(api.Root, "context", "The context call (call it before the agent runs; record the exchange after): "+
		"profile, session summary, recent messages, relevant memories, past conversations and the caller's external data, "+
		"packed into a character budget as a block of quoted data, with a trace of every decision.")

	register(api, huma.Operation{
		OperationID: "memory_context", Method: http.MethodPost, Path: "/users/{user}/context",
		Summary: "Assemble the memory context for the agent's next answer", Tags: tags,
		Description: "Returns the sections and prompt, the ready block to put in front of the model: stored text is quoted after \"> \" " +
			"so it can neither close the block nor pose as an instruction, and text that reads as an instruction is left out " +
			"(include_instruction_like to inject it as marked data). Only what has evidence for the question is injected " +
			"(search scores at or above LONG_TERM_MEMORY_MIN_SCORE), within budget_chars, a hard cap. Every call stores a " +
			"trace (trace_id) for ENGRAM_TRACE_RETENTION_DAYS. A user being erased, or unknown to the tenant, gets an empty context.",
		Errors: []int{http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity, http.StatusServiceUnavailable},
	}, func(ctx context.Context, in *contextInput) (*contextOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		res, err := svc.Build(ctx, in.Body.request(sc))
		if err != nil {
			return nil, problem(ctx, log, err, "body")
		}
		return &contextOutput{Body: fromContextResult(res)}, nil
	})

	register(api, huma.Operation{
		OperationID: "trace_get", Method: http.MethodGet, Path: "/traces/{trace_id}",
		Metadata: map[string]any{reachMetadata: reachByOwner},
		Summary:  "Read the trace of a context call", Tags: tags,
		Description: "Why each item was injected and why every other candidate was not Readable as soon " +
			"as the context call returned; 404 once older than ENGRAM_TRACE_RETENTION_DAYS, for another tenant's trace, and while its user is being erased.",
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, func(ctx context.Context, in *traceInput) (*traceOutput, error) {
		t, err := svc.Trace(ctx, tenantFrom(ctx), in.TraceID)
		if err == nil {
			err = owned(ctx, t.Scope.User, "trace", in.TraceID)
		}
		if err != nil {
			return nil, problem(ctx, log, err, "path")
		}
		return &traceOutput{Body: fromTrace(t)}, nil
	})

	register(api, huma.Operation{
		OperationID: "trace_latest", Method: http.MethodGet, Path: "/users/{user}/traces/latest",
		Summary: "Read the user's latest context trace", Tags: tags,
		Description: "The trace of the user's most recent context call 404 when there is none within " +
			"ENGRAM_TRACE_RETENTION_DAYS, and while the user is being erased.",
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, func(ctx context.Context, in *latestTraceInput) (*traceOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		t, err := svc.LatestTrace(ctx, sc)
		if err != nil {
			return nil, problem(ctx, log, err, "path")
		}
		return &traceOutput{Body: fromTrace(t)}, nil
	})

	registerTraceList(api, svc, tags)
}

// request is the use case's input: memory_context over HTTP and as a tool.
func (r ContextRequest) request(sc memory.Scope) contextbuild.Request {
	out := contextbuild.Request{Scope: sc, Query: r.Query, FlowID: r.FlowID, SessionID: r.SessionID, MaxMemories: r.MaxMemories,
		BudgetChars: r.BudgetChars, Include: r.Include, IncludeInstructionLike: r.IncludeInstructionLike}
	for _, x := range r.External {
		out.External = append(out.External, contextbuild.ExternalInput{Source: x.Source, Text: x.Text, Score: x.Score})
	}
	return out
}

func fromContextResult(res contextbuild.Result) ContextResult {
	s := ContextSections{Profile: res.Profile, Summary: res.Summary, RecentMessages: []ContextMessage{}, Standing: []ContextMemory{}, Memories: []ContextMemory{},
		Episodes: []ContextEpisode{}, External: []ContextExternal{}}
	for _, m := range res.Recent {
		s.RecentMessages = append(s.RecentMessages, ContextMessage{ID: m.ID, ExchangeID: m.ExchangeID, Role: string(m.Role), Content: m.Text,
			At: m.At.UTC(), Truncated: m.Truncated})
	}
	for _, m := range res.Standing {
		s.Standing = append(s.Standing, ContextMemory{Key: m.Memory.Key().String(), Type: string(m.Memory.Type()), Content: m.Text,
			Score: m.Score, Flags: fromFlags(m.Memory.State().Flags), Truncated: m.Truncated})
	}
	for _, m := range res.Memories {
		s.Memories = append(s.Memories, ContextMemory{Key: m.Memory.Key().String(), Type: string(m.Memory.Type()), Content: m.Text,
			Score: m.Score, Flags: fromFlags(m.Memory.State().Flags), Truncated: m.Truncated})
	}
	for _, e := range res.Episodes {
		m := e.Message
		s.Episodes = append(s.Episodes, ContextEpisode{MessageID: m.ID, ConversationID: m.ConversationID, Role: string(m.Role), Name: m.Name,
			Content: e.Text, CreatedAt: m.CreatedAt.UTC(), Score: e.Score, Truncated: e.Truncated})
	}
	for _, x := range res.External {
		s.External = append(s.External, ContextExternal{Source: x.Source, Text: x.Text, Score: x.Score, Truncated: x.Truncated})
	}
	return ContextResult{Sections: s, Prompt: res.Prompt, TraceID: res.TraceID, InjectedChars: res.InjectedChars}
}

func fromTrace(t promptctx.Trace) Trace {
	out := Trace{ID: t.ID, UserID: t.Scope.User, At: t.At.UTC(), Query: t.Query, QueryChars: t.QueryChars, QueryTruncated: t.QueryTruncated,
		StandingOverShare: t.StandingOverShare, SessionID: t.SessionID, FlowID: t.FlowID,
		ModeUsed: t.ModeUsed, FallbackReason: t.FallbackReason, BudgetChars: t.Budget, InjectedChars: t.InjectedChars,
		Items: []TraceItem{}, RawHits: []TraceRawHit{}, Omitted: map[string]int{}, TimingsMS: map[string]float64{},
		SourceCount: TraceSourceCount{
			Profile: t.SourceCount[promptctx.Profile], Standing: t.SourceCount[promptctx.Standing], Summary: t.SourceCount[promptctx.Summary], Recent: t.SourceCount[promptctx.Recent],
			Memories: t.SourceCount[promptctx.Memories], Episodes: t.SourceCount[promptctx.Episodes], External: t.SourceCount[promptctx.External],
		},
	}
	for _, it := range t.Items {
		out.Items = append(out.Items, TraceItem{ID: it.ID, Kind: it.Kind, Section: string(it.Section), Source: it.Source, Score: it.Score,
			Snippet: it.Snippet, Truncated: it.Truncated, Purged: it.Purged})
	}
	for _, h := range t.RawHits {
		out.RawHits = append(out.RawHits, TraceRawHit{ID: h.ID, Kind: h.Kind, Section: string(h.Section), Source: h.Source, Score: h.Score,
			Kept: h.Kept, Reason: h.Reason, Purged: h.Purged})
	}
	for reason, n := range t.Omitted {
		out.Omitted[reason] = n
	}
	for stage, d := range t.Timings {
		out.TimingsMS[stage] = float64(d.Microseconds()) / 1000
	}
	return out
}

package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"engram/app/retrieval"
	"engram/domain/memory"
	"engram/domain/ranking"
)

// SearchRequest is the body of POST /v1/users/{user}/search (README "Search").
type SearchRequest struct {
	Query string   `json:"query,omitempty" doc:"The question. Required except in mode full_inject, where it only orders the memories. Any length up to the body limit: beyond ENGRAM_QUERY_MAX_CHARS (default 2000) only its end is searched for, and query_truncated says so."`
	Scope string   `json:"scope,omitempty" enum:"memories,messages,all" doc:"What to search: long-term memories (default), past conversation messages (episodic memory), or both."`
	Mode  string   `json:"mode,omitempty" enum:"auto,dense,lexical,full_inject" doc:"auto: dense and lexical fused (lexical when vectors are down); dense: vectors; lexical: BM25; full_inject: every live memory, re-ranked. Default: LONG_TERM_MEMORY_RETRIEVE_MODE."`
	Limit int      `json:"limit,omitempty" minimum:"1" maximum:"100" doc:"Results wanted; default LONG_TERM_MEMORY_RETRIEVE_LIMIT (full_inject: every live memory up to LONG_TERM_MEMORY_RETRIEVE_SCAN_LIMIT)."`
	Types []string `json:"types,omitempty" maxItems:"5" doc:"Only memories of these types (preference, fact, goal, project, constraint)."`
	// ConversationID filters messages; memories are not bound to one conversation.
	ConversationID string     `json:"conversation_id,omitempty" maxLength:"128" doc:"Only messages of this conversation."`
	AgentID        string     `json:"agent_id,omitempty" maxLength:"128" doc:"Only memories of this agent."`
	AppID          string     `json:"app_id,omitempty" maxLength:"128" doc:"Only memories of this app."`
	RunID          string     `json:"run_id,omitempty" maxLength:"128" doc:"Only memories of this run."`
	Since          *time.Time `json:"since,omitempty" doc:"Only messages said (memories changed) at or after this time."`
	Until          *time.Time `json:"until,omitempty" doc:"Only messages said (memories changed) before this time."`
	MinScore       *float64   `json:"min_score,omitempty" minimum:"0" maximum:"1" doc:"Drop items scoring below this (scores are absolute relevance in [0, 1]). Default: LONG_TERM_MEMORY_MIN_SCORE. Ignored by full_inject."`
}

type searchInput struct {
	UserPath
	Body searchBody
}

// searchBody is the REST search's body: the tool's arguments and include_secrets,
// which the memory_search tool does not take, since what a tool returns goes to a
// model.
type searchBody struct {
	SearchRequest
	IncludeSecrets bool `json:"include_secrets,omitempty" doc:"Also return memories flagged secret and messages that hold a secret (card numbers, identity numbers, API keys, passwords), which a search leaves out when ENGRAM_SECRETS is flag (or mask, for text stored before it). Never offered to tools."`
}

// SearchResult is the answer of a search.
type SearchResult struct {
	Items          []SearchItem `json:"items"`
	ModeUsed       string       `json:"mode_used" enum:"auto,dense,lexical,full_inject" doc:"lexical when vectors were asked for but did not answer; see fallback_reason."`
	FallbackReason string       `json:"fallback_reason,omitempty" enum:"vectors_disabled,vector_timeout,vector_error,breaker_open,no_embeddable_text" doc:"Why vectors did not answer; no_embeddable_text: the query has no words to embed (only emoji or punctuation), which is no vector failure."`
	QueryTruncated bool         `json:"query_truncated,omitempty" doc:"True when the query was longer than ENGRAM_QUERY_MAX_CHARS: only its end was searched for."`
}

// SearchItem is one result with its score and how the score was made.
type SearchItem struct {
	Kind      string         `json:"kind" enum:"memory,message"`
	Memory    *Memory        `json:"memory,omitempty"`
	Message   *SearchMessage `json:"message,omitempty"`
	Score     float64        `json:"score" doc:"Absolute relevance in [0, 1], comparable across queries and users (a threshold can be applied to it); the sum of the breakdown."`
	Breakdown ScoreBreakdown `json:"breakdown"`
}

// SearchMessage is a message found by search.
type SearchMessage struct {
	MessageID      string    `json:"message_id"`
	ConversationID string    `json:"conversation_id"`
	Role           string    `json:"role" enum:"user,assistant,system"`
	Name           string    `json:"name,omitempty"`
	Content        string    `json:"content"`
	CreatedAt      time.Time `json:"created_at"`
}

// ScoreBreakdown is each signal's contribution to the score; they add up to it.
type ScoreBreakdown struct {
	Retrieval  float64 `json:"retrieval" doc:"Relevance found in the item itself: the query's words in its text (the matched share of the query), and its vector's similarity to the query."`
	Context    float64 `json:"context" doc:"Relevance found only in a message's neighbours (the messages around it in its conversation): weaker evidence than its own words."`
	Importance float64 `json:"importance" doc:"Memories only: their importance, in proportion to their relevance."`
	Confidence float64 `json:"confidence" doc:"Memories only: their confidence, in proportion to their relevance."`
	Recency    float64 `json:"recency" doc:"How recently the item changed or was said, in proportion to its relevance."`
	ExactKey   float64 `json:"exact_key" doc:"Memories only: how much of the memory's key the query spells out, in proportion to its relevance."`
}

type searchOutput struct {
	Body SearchResult
}

// Searcher is what the search operation needs.
type Searcher interface {
	Search(ctx context.Context, q retrieval.Search) (retrieval.Result, error)
}

// RegisterSearch adds POST /v1/users/{user}/search.
func RegisterSearch(api *API, svc Searcher) {
	log := api.opts.Logger
	describeTag(api.Root, "search", "Hybrid (dense and lexical) search over a user's memories and past messages.")
	register(api, huma.Operation{
		OperationID: "memory_search", Method: http.MethodPost, Path: "/users/{user}/search",
		Summary: "Search memories and past messages", Tags: []string{"search"},
		Description: "Every item's score is absolute relevance in [0, 1]: an item without lexical or semantic evidence for the query " +
			"is never returned (except in full_inject), nor one below min_score, so an unrelated query returns no items. " +
			"Expired, deleted and noise-key memories are never returned. When vectors fail, exceed ENGRAM_VECTOR_SEARCH_TIMEOUT_MS " +
			"or the query has nothing to embed, dense and auto answer from lexical search with mode_used lexical and a fallback_reason.",
		Errors: []int{http.StatusBadRequest, http.StatusUnprocessableEntity},
	}, func(ctx context.Context, in *searchInput) (*searchOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		q := in.Body.search(sc)
		q.IncludeSecrets = in.Body.IncludeSecrets
		res, err := svc.Search(ctx, q)
		if err != nil {
			return nil, problem(ctx, log, err, "body")
		}
		return &searchOutput{Body: fromSearchResult(res)}, nil
	})
}

// search is the use case's input: memory_search over HTTP and as a tool.
func (r SearchRequest) search(sc memory.Scope) retrieval.Search {
	q := retrieval.Search{Scope: sc, Query: r.Query, Within: r.Scope, Mode: r.Mode,
		Limit: r.Limit, Types: r.Types, ConversationID: r.ConversationID, MinScore: r.MinScore,
		AgentID: r.AgentID, AppID: r.AppID, RunID: r.RunID}
	if r.Since != nil {
		q.Since = *r.Since
	}
	if r.Until != nil {
		q.Until = *r.Until
	}
	return q
}

func fromSearchResult(res retrieval.Result) SearchResult {
	out := SearchResult{Items: make([]SearchItem, 0, len(res.Items)), ModeUsed: string(res.ModeUsed), FallbackReason: res.FallbackReason,
		QueryTruncated: res.QueryTruncated}
	for _, it := range res.Items {
		out.Items = append(out.Items, fromSearchItem(it))
	}
	return out
}

func fromSearchItem(it retrieval.Item) SearchItem {
	out := SearchItem{Kind: string(it.Kind), Score: it.Score, Breakdown: fromBreakdown(it.Breakdown)}
	if it.Memory != nil {
		m := fromMemory(*it.Memory)
		out.Memory = &m
	}
	if it.Message != nil {
		out.Message = &SearchMessage{MessageID: it.Message.ID, ConversationID: it.Message.ConversationID,
			Role: string(it.Message.Role), Name: it.Message.Name, Content: it.Message.Content, CreatedAt: it.Message.CreatedAt.UTC()}
	}
	return out
}

func fromBreakdown(b ranking.Breakdown) ScoreBreakdown {
	return ScoreBreakdown{Retrieval: b.Retrieval, Context: b.Context, Importance: b.Importance, Confidence: b.Confidence, Recency: b.Recency, ExactKey: b.ExactKey}
}

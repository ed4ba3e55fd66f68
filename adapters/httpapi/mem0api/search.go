package mem0api

import (
	"encoding/json"
	"slices"

	"engram/app/retrieval"
	"engram/domain/memfilter"
	"engram/domain/memory"
)

// Search defaults as mem0 documents them.
const (
	DefaultTopK      = 10
	MaxTopK          = 100
	DefaultThreshold = 0.1
)

// mem0SearchBody is a search as every client generation sends it.
type mem0SearchBody struct {
	Query   string          `json:"query" doc:"What to look for."`
	Filters json.RawMessage `json:"filters,omitempty" doc:"Which memories: as a listing's filters."`
	mem0EntityJSON
	TopK         *int     `json:"top_k,omitempty" doc:"How many results at most (default 10, at most 100)."`
	Limit        *int     `json:"limit,omitempty" doc:"The older clients' name for top_k."`
	Threshold    *float64 `json:"threshold,omitempty" doc:"The least score a result needs, in [0, 1] (default 0.1)."`
	OutputFormat string   `json:"output_format,omitempty" doc:"v1.1: the legacy routes answer {results}; otherwise a list."`
}

type scored struct {
	m     memory.Memory
	score float64
}

// mem0SearchJSON is a search's answer.
type mem0SearchJSON struct {
	Results []mem0MemoryJSON `json:"results" doc:"The memories found, best first, each with its score."`
}

func (b mem0SearchBody) topK() (int, error) {
	k := DefaultTopK
	if b.TopK != nil {
		k = *b.TopK
	} else if b.Limit != nil {
		k = *b.Limit
	}
	if k < 1 || k > MaxTopK {
		return 0, badRequest("top_k must be from 1 to " + itoa(MaxTopK) + ", got " + itoa(k))
	}
	return k, nil
}

// searched runs engram's search for every user the filter may keep, keeps what
// the filter keeps and merges the users' results by score.
func (h *Handler) searched(c call) ([]mem0MemoryJSON, string, error) {
	var body mem0SearchBody
	if err := h.decode(c, &body); err != nil {
		return nil, "", err
	}
	if body.Query == "" {
		return nil, "", badRequest("query is required: the text to search the memories for")
	}
	k, err := body.topK()
	if err != nil {
		return nil, "", err
	}
	f, err := body.filter(body.Filters)
	if err != nil {
		return nil, "", err
	}
	threshold := DefaultThreshold
	if body.Threshold != nil {
		threshold = *body.Threshold
	}
	found, err := h.searchUsers(c, f, body.Query, threshold)
	if err != nil {
		return nil, "", err
	}
	slices.SortStableFunc(found, byScore)
	out := make([]mem0MemoryJSON, 0, min(k, len(found)))
	for _, s := range found[:min(k, len(found))] {
		j := toMemoryJSON(s.m)
		j.Score = &s.score
		out = append(out, j)
	}
	return out, body.OutputFormat, nil
}

func (h *Handler) searchUsers(c call, f memfilter.Filter, query string, threshold float64) ([]scored, error) {
	userIDs, err := h.usersOf(c, f)
	if err != nil {
		return nil, err
	}
	var found []scored
	for _, user := range userIDs {
		scope, err := h.scope(c, user)
		if err != nil {
			return nil, err
		}
		res, err := h.deps.Search.Search(c.ctx(), retrieval.Search{Scope: scope, Query: query, Within: retrieval.WithinMemories,
			Limit: retrieval.MaxLimit, MinScore: &threshold})
		if err != nil {
			return nil, err
		}
		for _, it := range res.Items {
			if it.Memory != nil && f.Match(subject{*it.Memory}) {
				found = append(found, scored{m: *it.Memory, score: it.Score})
			}
		}
	}
	return found, nil
}

// search is POST /v3/memories/search/: {results}.
func (h *Handler) search(c call) (any, error) {
	results, _, err := h.searched(c)
	if err != nil {
		return nil, err
	}
	return mem0SearchJSON{Results: results}, nil
}

// searchLegacy is POST /v1/memories/search/ and /v2/memories/search/: a list,
// or {results} with output_format v1.1.
func (h *Handler) searchLegacy(c call) (any, error) {
	results, format, err := h.searched(c)
	if err != nil {
		return nil, err
	}
	if format == "v1.1" {
		return mem0SearchJSON{Results: results}, nil
	}
	return results, nil
}

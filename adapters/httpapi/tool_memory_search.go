package httpapi

import (
	"context"

	"engram/domain/memory"
)

// MemorySearchTool is memory_search: POST /v1/users/{user}/search as a tool; its
// arguments are the operation's body.
func MemorySearchTool(svc Searcher) Tool {
	return defineTool(toolSpec{
		name: "memory_search",
		description: "Search the user's long-term memories (and, with scope messages or all, what was said in past conversations) " +
			"for what answers a question: {items: [{kind, memory | message, score}], mode_used}, best first, score in [0, 1]. " +
			"Call it before answering something that may depend on what the user told you before.",
		readOnly: true,
		docs: map[string]string{
			"query": "What you want to know, in the user's words, e.g. \"what does the user eat\".",
			"scope": "memories (default): long-term memories; messages: past conversation messages; all: both.",
			"limit": "Results wanted, 1 to 100; leave it out for the server's default.",
			"types": "Only memories of these types: preference, fact, goal, project, constraint.",
		},
	}, func(ctx context.Context, sc memory.Scope, a *SearchRequest) (SearchResult, error) {
		res, err := svc.Search(ctx, a.search(sc))
		if err != nil {
			return SearchResult{}, err
		}
		return fromSearchResult(res), nil
	})
}

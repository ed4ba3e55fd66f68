package httpapi

import (
	"context"

	"engram/app/memories"
	"engram/domain/memory"
)

// memoryListArguments are the query parameters of GET /v1/users/{user}/memories
// (listInput) a model needs, with their limits.
type memoryListArguments struct {
	Type   []string `json:"type,omitempty" doc:"Only these types."`
	Q      string   `json:"q,omitempty" maxLength:"200" doc:"Case-insensitive substring of the key or content."`
	Limit  int      `json:"limit,omitempty" minimum:"1" maximum:"1000" default:"100" doc:"Memories per page."`
	Cursor string   `json:"cursor,omitempty" maxLength:"512" doc:"next_cursor of the previous page."`
}

// MemoryLister is what memory_list needs.
type MemoryLister interface {
	List(ctx context.Context, q memories.List) (memories.ListResult, error)
}

// MemoryListTool is memory_list: GET /v1/users/{user}/memories as a tool.
func MemoryListTool(svc MemoryLister) Tool {
	return defineTool(toolSpec{
		name: "memory_list",
		description: "List the user's current long-term memories in key order: {items, next_cursor}. " +
			"Use it to see what you already know about the user and to find the key to replace, append to or delete. " +
			"Deleted and expired memories are left out.",
		readOnly: true,
		docs: map[string]string{
			"type":   "Only memories of these types: preference, fact, goal, project, constraint.",
			"q":      "Only memories whose key or content contains this text (any letter case).",
			"limit":  "Memories per page, 1 to 1000; default 100.",
			"cursor": "To read the next page, the next_cursor of the previous result, unchanged.",
		},
	}, func(ctx context.Context, sc memory.Scope, a *memoryListArguments) (MemoryList, error) {
		res, err := svc.List(ctx, memories.List{Scope: sc, Types: a.Type, Contains: a.Q, Limit: a.Limit, Cursor: a.Cursor})
		if err != nil {
			return MemoryList{}, err
		}
		return fromMemoryList(res), nil
	})
}

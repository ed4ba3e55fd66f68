package httpapi

import (
	"context"

	"engram/app/memories"
	"engram/domain/memory"
)

type memoryAppendArguments struct {
	KeyArgument
	AppendMemoryRequest
}

// MemoryAppender is what memory_append needs.
type MemoryAppender interface {
	Append(ctx context.Context, cmd memories.Append) (memory.Memory, error)
}

// MemoryAppendTool is memory_append: POST /v1/users/{user}/memories/{key}/append as a tool.
func MemoryAppendTool(svc MemoryAppender) Tool {
	return defineTool(toolSpec{
		name: "memory_append",
		description: "Add a detail, on a new line, to a memory the user already has (a second allergy under `allergies`). " +
			"Returns the memory. The key must exist: to create a memory, call memory_save. " +
			"The memory must stay within 1000 characters, and what memory_save must never save may not be appended either.",
		docs: map[string]string{
			"key":     keyDoc + " It must be a key the user has (memory_list shows them).",
			"content": "The detail to add, as a statement that reads well after what the memory already says.",
		},
		notFound: "memory_append only adds to an existing memory: create it with memory_save",
	}, func(ctx context.Context, sc memory.Scope, a *memoryAppendArguments) (Memory, error) {
		m, err := svc.Append(ctx, memories.Append{Scope: sc, Key: a.Key, Content: a.Content})
		if err != nil {
			return Memory{}, err
		}
		return fromMemory(m), nil
	})
}

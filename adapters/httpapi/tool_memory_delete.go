package httpapi

import (
	"context"

	"engram/app/memories"
	"engram/domain/memory"
)

type memoryDeleteArguments struct {
	KeyArgument
}

// MemoryDeleted is memory_delete's result.
type MemoryDeleted struct {
	Key     string `json:"key" doc:"The normalised key of the deleted memory."`
	Deleted bool   `json:"deleted" doc:"Always true: a key with nothing to delete is an error."`
}

// MemoryDeleter is what memory_delete needs.
type MemoryDeleter interface {
	Delete(ctx context.Context, cmd memories.Delete) error
}

// MemoryDeleteTool is memory_delete: DELETE /v1/users/{user}/memories/{key} as a tool.
func MemoryDeleteTool(svc MemoryDeleter) Tool {
	return defineTool(toolSpec{
		name: "memory_delete",
		description: "Delete the user's memory under a key: when the user asks you to forget something, or says it is no longer true. " +
			"To correct a memory instead, save the key again with memory_save. The key must exist.",
		destructive: true,
		docs:        map[string]string{"key": keyDoc + " It must be a key the user has (memory_list shows them)."},
		notFound:    "memory_list shows the keys the user has",
	}, func(ctx context.Context, sc memory.Scope, a *memoryDeleteArguments) (MemoryDeleted, error) {
		if err := svc.Delete(ctx, memories.Delete{Scope: sc, Key: a.Key}); err != nil {
			return MemoryDeleted{}, err
		}
		key, err := memory.ParseKey(a.Key)
		if err != nil {
			return MemoryDeleted{}, err
		}
		return MemoryDeleted{Key: key.String(), Deleted: true}, nil
	})
}

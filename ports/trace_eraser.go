package ports

import (
	"context"

	"engram/domain/memory"
)

// TraceEraser removes erased content from the stored traces of context calls: a
// trace quotes what it injected (snippets), so a purged memory or a deleted chat
// would otherwise outlive its erasure there for the traces' retention.
type TraceEraser interface {
	// RedactTraces blanks, in every trace of the user, the snippets of the items
	// whose id (a memory key, a message id) is a key of erased, which keep an id
	// and a purged mark, and marks the raw hits with those ids purged. An id
	// erased maps to a non-empty value is replaced by it (a memory key, made from
	// its content, by the purged key its history keeps). It says how many traces
	// it changed.
	RedactTraces(ctx context.Context, scope memory.Scope, erased map[string]string) (int64, error)

	// DeleteSessionTraces removes the traces of the context calls that named the
	// session (of flowID; of any flow when flowID is empty) and says how many.
	DeleteSessionTraces(ctx context.Context, scope memory.Scope, sessionID, flowID string) (int64, error)
}

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
	// with these ids (memory keys, message ids), which keep their id and a
	// purged mark, and marks the raw hits with these ids purged. It says how many
	// traces it changed.
	RedactTraces(ctx context.Context, scope memory.Scope, itemIDs []string) (int64, error)

	// DeleteSessionTraces removes the traces of the context calls that named the
	// session (of flowID; of any flow when flowID is empty) and says how many.
	DeleteSessionTraces(ctx context.Context, scope memory.Scope, sessionID, flowID string) (int64, error)
}

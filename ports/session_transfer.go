package ports

import (
	"context"

	"engram/domain/session"
)

// SessionExporter hands out whole sessions to be moved to another store: the SQL
// fallback gives the sessions it recorded while Redis was unreachable back to Redis
// once it answers again.
type SessionExporter interface {
	// SessionRefs returns up to limit sessions the store holds (live meta or a
	// summary), the least recently active first.
	SessionRefs(ctx context.Context, limit int) ([]session.Ref, error)
	// ExportSession returns the whole session with its revision. ErrNotFound when
	// the store has nothing of it.
	ExportSession(ctx context.Context, ref session.Ref) (session.State, error)
	// RemoveSession deletes the session if its revision is still rev; ErrConflict
	// when it changed (new turns arrived: export it again), ErrNotFound when it is
	// gone.
	RemoveSession(ctx context.Context, ref session.Ref, rev int64) error
}

// SessionImporter takes whole sessions in.
type SessionImporter interface {
	ExportSession(ctx context.Context, ref session.Ref) (session.State, error)
	// ReplaceSession writes st as the whole session (messages beyond the maximum
	// history trimmed, TTLs counted from now, the index entry refreshed) if the
	// stored revision is still rev (0: the store has nothing of the session);
	// else ErrConflict and nothing is written.
	ReplaceSession(ctx context.Context, st session.State, rev int64) error
}

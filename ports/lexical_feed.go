package ports

import (
	"context"

	"engram/domain/memory"
)

// LexicalChanges is what changed in a user's documents after a generation.
type LexicalChanges struct {
	Generation int64        // the user's generation the changes bring a reader to
	Docs       []LexicalDoc // put since (a later put of the same document replaces it)
	Deleted    []LexicalRef // deleted since
	// Reset says the reader is too far behind to catch up by changes (the
	// deletions since its generation were compacted, or the user was erased and
	// written again): Docs then hold every live document of the user, and the
	// reader must forget whatever else it has.
	Reset bool
}

// LexicalFeed is lexical search's view of the documents LexicalDocs keeps. Every
// change advances the user's generation in the same transaction, so a searcher
// that has seen generation g catches up by reading the changes after g, and sees
// every committed write of any process (read-your-writes across API processes).
// Generations of one user only increase and commit in order.
type LexicalFeed interface {
	// Generation is the user's current generation; 0 when nothing of the user
	// was ever indexed.
	Generation(ctx context.Context, scope memory.Scope) (int64, error)

	// ChangesSince returns the user's changes after generation since. With since
	// 0 it returns every stored document and no deletions. Deleted documents are
	// kept as tombstones only for a while (compaction): a reader whose
	// generation is older than the oldest deletion kept gets a Reset, as does a
	// reader of a user erased since (the user's generation then starts above any
	// generation the user had before).
	ChangesSince(ctx context.Context, scope memory.Scope, since int64) (LexicalChanges, error)

	// Users returns up to limit users with documents, those with the most
	// changes (the highest generation) first: the ones worth loading before
	// their first search.
	Users(ctx context.Context, limit int) ([]memory.Scope, error)
}

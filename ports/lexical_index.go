package ports

import (
	"context"
	"time"

	"engram/domain/memory"
)

// LexicalDoc is one text of a user as lexical search keeps it: analysed terms and
// the fields search filters on. It is derived data: the truth stays in the memory
// and message tables, and a document can always be rebuilt from them.
type LexicalDoc struct {
	Tenant string
	User   string
	Kind   memory.Kind
	// ID is the memory's id, or the message's arrival id (conversation.Message.Seq,
	// unique across tenants, unlike the client's message_id).
	ID             string
	ConversationID string    // messages only
	MemoryType     string    // memories only
	At             time.Time // messages: when it was said; memories: last change
	ExpiresAt      time.Time // memories only; zero: never
	// Speaker is the analysed first term of the speaker's name (messages); a
	// question that names the speaker boosts the message.
	Speaker string
	// Terms are the analysed terms of the text, in order, repeats kept. A message's
	// neighbours are not included: search adds them from the conversation's order,
	// so a neighbour that arrives later changes the context without a rewrite.
	Terms []string
	// Version is the memory version the terms come from; the repair pass compares
	// it with the truth. 0 for messages.
	Version int64
}

// LexicalRef names one document of a user.
type LexicalRef struct {
	Kind memory.Kind
	ID   string
}

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

// LexicalIndex keeps users' analysed documents for lexical search (the store that
// LexicalSearcher reads). Every change
// advances the user's generation in the same transaction, so a searcher that has
// seen generation g catches up by reading the changes after g, and sees every
// committed write of any process (read-your-writes across API processes).
// Generations of one user only increase and commit in order.
type LexicalIndex interface {
	// PutLexicalDocs inserts or replaces documents, keyed by tenant, user, kind
	// and id, in one transaction.
	PutLexicalDocs(ctx context.Context, docs []LexicalDoc) error

	// DeleteLexicalDocs removes documents of one user; unknown ids are ignored.
	DeleteLexicalDocs(ctx context.Context, scope memory.Scope, refs []LexicalRef) error

	// LexicalGeneration is the user's current generation; 0 when nothing of the
	// user was ever indexed.
	LexicalGeneration(ctx context.Context, scope memory.Scope) (int64, error)

	// LexicalChangesSince returns the user's changes after generation since. With
	// since 0 it returns every stored document and no deletions. Deleted documents
	// are kept as tombstones only for a while (compaction): a reader whose
	// generation is older than the oldest deletion kept gets a Reset, as does a
	// reader of a user erased since (the user's generation then starts above any
	// generation the user had before).
	LexicalChangesSince(ctx context.Context, scope memory.Scope, since int64) (LexicalChanges, error)

	// LexicalVersions returns the memory versions indexed for these memory ids of
	// the user; ids without a document are absent from the map.
	LexicalVersions(ctx context.Context, scope memory.Scope, memoryIDs []string) (map[string]int64, error)

	// LexicalUsers returns up to limit users with documents, those with the most
	// changes (the highest generation) first: the ones worth loading before their
	// first search.
	LexicalUsers(ctx context.Context, limit int) ([]memory.Scope, error)

	// LexicalCursor returns a named position of a background pass ("" when unset),
	// and SetLexicalCursor stores it.
	LexicalCursor(ctx context.Context, name string) (string, error)
	SetLexicalCursor(ctx context.Context, name, position string) error

	// ClaimLexicalCursor gives holder the named cursor until now+lease, unless
	// another holder's lease is still running (ok false), and returns its position.
	// Claiming again renews the lease. Several indexer processes thus share one
	// pass instead of all doing it.
	ClaimLexicalCursor(ctx context.Context, name, holder string, now time.Time, lease time.Duration) (position string, ok bool, err error)
	// ReleaseLexicalCursor ends holder's lease of the named cursor (a process
	// shutting down), so another holder may claim it at once. Another holder's
	// lease is left alone.
	ReleaseLexicalCursor(ctx context.Context, name, holder string) error
}

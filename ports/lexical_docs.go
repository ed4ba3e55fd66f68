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

// LexicalDocs keeps users' analysed documents for lexical search: the lexical
// indexer writes them, LexicalFeed reads them back. Every change advances the
// user's generation in the same transaction (see LexicalFeed).
type LexicalDocs interface {
	// Put inserts or replaces documents, keyed by tenant, user, kind and id, in
	// one transaction.
	Put(ctx context.Context, docs []LexicalDoc) error

	// Delete removes documents of one user; unknown ids are ignored.
	Delete(ctx context.Context, scope memory.Scope, refs []LexicalRef) error

	// Versions returns the memory versions indexed for these memory ids of the
	// user; ids without a document are absent from the map.
	Versions(ctx context.Context, scope memory.Scope, memoryIDs []string) (map[string]int64, error)
}

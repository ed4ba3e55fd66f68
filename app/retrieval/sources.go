package retrieval

import (
	"context"
	"time"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
)

// The reads below serve only this package, so their interfaces live here rather
// than in ports (docs/DEVELOPING.md). adapters/sqlstore implements them on its
// memory and message stores.

// MemoryReader is what retrieval reads of the memory truth.
type MemoryReader interface {
	// MemoriesByID returns the user's memories with these ids, live or not; ids
	// that are not the user's are absent.
	MemoriesByID(ctx context.Context, scope memory.Scope, ids []string) ([]memory.Memory, error)
	// TopMemories returns up to limit live memories of the user (of these types;
	// empty: all), the most important first, then the most recently changed
	// (full_inject's bound).
	TopMemories(ctx context.Context, scope memory.Scope, types []memory.Type, now time.Time, limit int) ([]memory.Memory, error)
}

// MessageReader is what retrieval reads of the stored messages.
type MessageReader interface {
	// MessagesBySeq returns the user's messages with these arrival ids
	// (conversation.Message.Seq); ids that are not the user's are absent.
	MessagesBySeq(ctx context.Context, scope memory.Scope, seqs []string) ([]conversation.Message, error)
}

// AccessWriter records reads of memories (last_accessed_at). It is not a change
// of the memory: no version, no event.
type AccessWriter interface {
	TouchMemories(ctx context.Context, tenant string, ids []string, at time.Time) error
}

// QueryExpander makes a question's lexical query: its terms and the related terms
// (synonyms, translations, what a question of its kind asks for) that stand in
// for them (adapters/lexicon).
type QueryExpander interface {
	Expand(query string) (terms []string, related []ports.RelatedTerm)
}

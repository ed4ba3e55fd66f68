package ports

import (
	"context"
	"time"

	"engram/domain/memory"
	"engram/domain/ranking"
)

// LexicalQuery is one lexical search of one kind of a user's documents.
type LexicalQuery struct {
	Kind           memory.Kind
	Terms          []string  // the analysed query, repeats kept
	MemoryTypes    []string  // memories only; empty: all types
	ConversationID string    // messages only; empty: any conversation
	Since, Until   time.Time // since inclusive, until exclusive; zero: unbounded
	Now            time.Time // memories expired at Now are left out
	Limit          int       // the best Limit; 0: all
	// Only, when not nil, restricts the search to these documents (full_inject
	// scores the memories it already chose).
	Only []string
	// Related are terms that stand in for a query term (a synonym, a translation,
	// a narrower concept): a document is credited, for that term, the best of the
	// term itself and each related term at its weight, so related terms widen what
	// a term matches without adding to the query's IDF mass.
	Related []RelatedTerm
}

// RelatedTerm is a term that stands in for the query term Of, at Weight in (0, 1).
type RelatedTerm struct {
	Of     string
	Term   string
	Weight float64
}

// LexicalHit is a document that shares a term with the query, with its calibrated
// lexical evidence (ranking.Recipe.TermMatch over the query's terms, divided by
// ranking.QueryMass): absolute, so 1 means every query term is in the document
// itself, whatever the other documents of the user.
type LexicalHit struct {
	ID       string
	Evidence ranking.Evidence
	// Speaker is the analysed first term of the speaker's name (messages).
	Speaker string
}

// LexicalSearcher is lexical search over the documents a LexicalIndex keeps: every
// committed write of any process is seen by the next search.
type LexicalSearcher interface {
	// SearchLexical returns the user's documents that match the query and its
	// filters, the most evident first (ties: the earlier document), at most
	// q.Limit of them.
	SearchLexical(ctx context.Context, scope memory.Scope, q LexicalQuery) ([]LexicalHit, error)
	// Speakers returns the speaker terms of the user's messages with these ids
	// (ids without a speaker, or not the user's, are absent).
	Speakers(ctx context.Context, scope memory.Scope, ids []string) (map[string]string, error)
}

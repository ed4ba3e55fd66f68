package ports

// TextAnalyzer turns text into the index terms that lexical search and the local
// embedder compare: the same analyzer must be used for stored text and for queries,
// or they will not meet.
type TextAnalyzer interface {
	// Terms returns the terms of text in order of appearance, repeats kept (term
	// frequency matters), stop words removed. It never fails: text it cannot analyse
	// yields no terms.
	Terms(text string) []string
}

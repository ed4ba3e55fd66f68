// Package ranking is engram's relevance arithmetic: BM25 scoring over weighted
// fields, fusion of ranked lists (reciprocal-rank and min-max), the neighbour
// context that indexing adds to a message, pseudo-relevance feedback, the boost for
// a speaker the query names, and the final re-ranking of candidates by retrieval
// score, importance, confidence, recency and exact-key match with a breakdown of
// every score.
//
// It is pure Go: standard library only, no I/O, no context. Text analysis lives in
// adapters/textanalysis and embeddings in adapters/localembed or adapters/llm; the
// retrieval use case combines them with these functions. docs/BENCHMARKS.md
// ("Retrieval quality: LoCoMo") measures every default chosen here.
package ranking

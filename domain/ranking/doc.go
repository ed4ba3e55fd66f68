// Package ranking is engram's relevance arithmetic: BM25 scoring over weighted
// fields, the neighbour context that indexing adds to a message, calibrated
// relevance (the matched share of a query's IDF mass as lexical evidence, an
// embedder's cosine scale as dense evidence, their noisy-OR fusion and the lift for
// a speaker the query names), the final score of candidates (relevance times their
// importance, confidence, recency and exact-key signals, with a breakdown that adds
// up to it), and, for the component method the benchmarks compare against, fusion
// of ranked lists (reciprocal-rank and min-max) and pseudo-relevance feedback.
//
// A score is absolute: it depends on the query and the item, not on the other
// items, so that "nothing relevant" is a score of 0 and a client can threshold it.
//
// It is pure Go: standard library only, no I/O, no context. Text analysis lives in
// adapters/textanalysis and embeddings in adapters/localembed or adapters/llm; the
// retrieval use case combines them with these functions. docs/BENCHMARKS.md
// ("Retrieval quality: LoCoMo", "Calibrated relevance") measures every default
// chosen here.
package ranking

// Package lexical is engram's lexical search engine: BM25F over each user's analysed
// documents, answered from per-user in-memory indexes that follow the LexicalIndex
// store by generations, scored as calibrated evidence (ranking.Recipe.TermMatch:
// the matched share of the query's IDF mass). It implements ports.LexicalSearcher.
//
// Why in memory: one user with 100k memories whose query shares a common word
// ("user", "like") with most of them must score ~100k postings per search. Reading
// them from SQL costs tens of milliseconds; scoring them from memory costs about
// one (docs/BENCHMARKS.md "Search latency at scale"). The store stays the truth
// that every process reads: each search asks the store for the user's generation
// (one indexed row) and applies the changes after the generation it has, so a
// write committed by any process is seen by the next search anywhere.
//
// A message's neighbour context (ranking.ContextFields: ±NeighbourWindow messages
// of its conversation at NeighbourWeight) is added at query time from the
// conversation's order, not stored: a neighbour that arrives later changes it
// without rewriting anything, and the evidence equals ranking.Index.Match's over
// ContextFields.
//
// It imports ports and domain only; it must not import the app or other adapters.
package lexical

package ranking

// Recipe is the hybrid retrieval method measured in docs/BENCHMARKS.md ("Retrieval
// quality: LoCoMo"), as settings the indexer and the retrieval use case share.
//
// Indexing a message: its text followed by its date written as "2 January 2006"
// (questions name months and years), analysed; its own terms at weight 1 plus the
// terms of NeighbourWindow messages on each side (same conversation) at
// NeighbourWeight (ContextFields); its vector is the normalised sum of its own embedding and
// NeighbourWeight times each neighbour's (ContextVectors). Memories have no
// neighbours and are indexed alone.
//
// Searching: BM25 over the analysed query, then BoostNamed with SpeakerBoost; the
// query embedding against the vectors, boosted the same way; both lists, Depth
// deep, fused by Fuse. When the vector side is down, the lexical list alone is
// the answer.
type Recipe struct {
	BM25            BM25
	NeighbourWindow int
	NeighbourWeight float64
	SpeakerBoost    float64
	// DenseWeight is the dense list's weight in the fusion; the lexical list has 1.
	DenseWeight float64
	// Depth is how many results of each list are fused.
	Depth int
}

// DefaultRecipe is the product's method. Each value and its alternatives are in
// the ablation of docs/BENCHMARKS.md; tuned by leave-one-conversation-out, the same
// values were chosen for every held-out conversation.
var DefaultRecipe = Recipe{
	BM25:            DefaultBM25,
	NeighbourWindow: 2,
	NeighbourWeight: 0.5,
	SpeakerBoost:    0.5,
	DenseWeight:     0.3,
	Depth:           100,
}

// Fuse combines a lexical and a dense list by normalised score fusion (FuseMinMax),
// the lexical list at weight 1 and the dense one at DenseWeight. Min-max fusion
// beat reciprocal-rank fusion here because the local embedder is the weaker list:
// RRF gives its first ranks the same pull as lexical ones whatever their scores.
// Either list may be empty.
func (r Recipe) Fuse(lexical, dense []Scored) []Scored {
	return FuseMinMax(List{Items: lexical, Weight: 1}, List{Items: dense, Weight: r.DenseWeight})
}

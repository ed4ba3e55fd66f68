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
// Searching: the analysed query's lexical evidence in each text (TermMatch over
// its terms, divided by QueryMass), Depth best; the query embedding against the
// vectors, Depth nearest, each cosine turned into dense evidence by the
// embedder's DenseScale; both fused per item by Fuse, with the speaker lift. When
// the vector side is down, the lexical evidence alone is the answer.
type Recipe struct {
	BM25            BM25
	NeighbourWindow int
	NeighbourWeight float64
	// ContextDiscount is what a term found only in a message's neighbours counts
	// for against the same strength in its own text (TermMatch).
	ContextDiscount float64
	// TermSaturation is c of Saturate: how fast a term's evidence approaches its
	// ceiling.
	TermSaturation float64
	// BackgroundDocs is how many texts without the term IDF adds to a user's.
	BackgroundDocs int
	// SpeakerBoost lifts the relevance of a message whose speaker the query names
	// (Fuse); 0 to 1.
	SpeakerBoost float64
	// Depth is how many results of each retriever are fused.
	Depth int
}

// DefaultRecipe is the product's method. Each value and its alternatives are in
// the ablation and the calibration sections of docs/BENCHMARKS.md; tuned by
// leave-one-conversation-out, the same values were chosen for every held-out
// conversation.
var DefaultRecipe = Recipe{
	BM25:            DefaultBM25,
	NeighbourWindow: 2,
	NeighbourWeight: 0.5,
	ContextDiscount: 0.8,
	TermSaturation:  0.3,
	BackgroundDocs:  20,
	SpeakerBoost:    1,
	Depth:           100,
}

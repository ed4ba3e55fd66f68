// Package retrieval is search over a user's memories and messages in the modes
// full_inject and dense, plus lexical and auto (dense and lexical fused),
// each result scored as calibrated relevance with a breakdown; the deadline and the
// circuit breakers around the vector side (VectorGuard); last-access tracking off
// the request path.
//
// # Scores
//
// A score is absolute relevance in [0, 1], comparable across queries and users, so
// a client can threshold it (min_score, LONG_TERM_MEMORY_MIN_SCORE):
//
//	lexical  L = Σ_t q_t·min(idf_t, bm25_t)·(own_t + γ·ctx_t)/tf_t  /  Σ_t q_t·idf_t
//	dense    D = clamp((cosine − floor) / (full − floor), 0, 1)
//	relevance R = 1 − (1 − L)(1 − D), lifted to R + b·R·(1 − R) for a message whose
//	           speaker the query names
//	score     = R × (Σ_s w_s·s) / (Σ_s w_s)
//
// L is the matched share of the query's IDF mass (ranking.Recipe.TermMatch): each
// query term earns at most its idf, what one occurrence in a text of average
// length earns, so repeating a word or stuffing keywords earns nothing more and a
// long text less; own_t and ctx_t are the term's frequency in the text and in its
// neighbours (the ±2 messages around a message, at half weight), the neighbours'
// share discounted by γ (ContextDiscount). D maps the cosine against the
// thresholds measured for the embedder in use (ranking.DenseScale). In mode lexical
// D = 0, in mode dense L = 0. The signals s are retrieval (1), importance,
// confidence, recency and exact key (ranking.Score); an item without one (a message
// has no importance, confidence or key) leaves it out. The breakdown shows
// retrieval and context (R's direct and neighbour shares at the retrieval weight)
// and each other signal's part; it adds up to the score.
//
// An item without lexical or semantic evidence (R = 0) is never returned, except
// in full_inject, which returns every live memory whatever the query.
//
// One file per use case or step (request.go, gather.go, rank.go, full_inject.go);
// it depends on domain and ports only, and never on fx.
package retrieval

import (
	"time"

	"engram/domain/ranking"
	"engram/domain/secret"
	"engram/ports"
)

// Mode is how a search retrieves.
type Mode string

const (
	ModeAuto       Mode = "auto"        // dense and lexical fused; lexical when vectors are down
	ModeDense      Mode = "dense"       // vectors only; lexical when they are down
	ModeLexical    Mode = "lexical"     // BM25 only
	ModeFullInject Mode = "full_inject" // every live memory of the user, re-ranked
)

// Why a search that asked for vectors answered from lexical search.
const (
	FallbackVectorsDisabled  = "vectors_disabled"   // no embedder or vector index configured
	FallbackVectorTimeout    = "vector_timeout"     // past ENGRAM_VECTOR_SEARCH_TIMEOUT_MS
	FallbackVectorError      = "vector_error"       // the embedder or the index failed
	FallbackBreakerOpen      = "breaker_open"       // recent failures: vectors are not tried
	FallbackNoEmbeddableText = "no_embeddable_text" // the query has no words to embed (emoji, punctuation)
)

// FallbackReasons lists every reason (metrics pre-register them).
var FallbackReasons = []string{FallbackVectorsDisabled, FallbackVectorTimeout, FallbackVectorError, FallbackBreakerOpen, FallbackNoEmbeddableText}

// Modes lists every mode.
var Modes = []Mode{ModeAuto, ModeDense, ModeLexical, ModeFullInject}

// Defaults of Options (the LONG_TERM_MEMORY_* defaults where the setting has one).
const (
	DefaultLimit         = 6   // LONG_TERM_MEMORY_RETRIEVE_LIMIT
	DefaultScanLimit     = 80  // LONG_TERM_MEMORY_RETRIEVE_SCAN_LIMIT
	MaxLimit             = 100 // the most results one search returns
	DefaultVectorTimeout = 150 * time.Millisecond
	DefaultQueryMaxChars = 2000 // ENGRAM_QUERY_MAX_CHARS: characters of a query searched for
)

// DefaultDenseScale is the local embedder's (adapters/localembed, 512 dimensions),
// measured on LoCoMo and MemoryBank (docs/BENCHMARKS.md "Calibrated relevance").
var DefaultDenseScale = ranking.DenseScale{Floor: 0.25, Full: 0.5, Weight: 0.05}

// Options shape search.
type Options struct {
	Recipe  ranking.Recipe  // zero: ranking.DefaultRecipe
	Weights ranking.Weights // zero: ranking.DefaultWeights
	// Dense maps cosines of the embedder in use to dense evidence; zero:
	// DefaultDenseScale (the local embedder's).
	Dense ranking.DenseScale
	// MinScore is LONG_TERM_MEMORY_MIN_SCORE: the least score an item needs to be
	// returned when a request names none (full_inject excepted).
	MinScore float64
	// DefaultMode is LONG_TERM_MEMORY_RETRIEVE_MODE, used when a request names none.
	DefaultMode Mode
	// DefaultLimit is LONG_TERM_MEMORY_RETRIEVE_LIMIT, used when a request names none.
	DefaultLimit int
	// ScanLimit is LONG_TERM_MEMORY_RETRIEVE_SCAN_LIMIT: full_inject's bound.
	ScanLimit int
	// QueryMaxChars is ENGRAM_QUERY_MAX_CHARS: a longer query is cut to its end.
	QueryMaxChars int
	// Secrets is ENGRAM_SECRETS: unless off, what holds a secret is returned only
	// to a search that asks for it (Search.IncludeSecrets).
	Secrets secret.Mode
}

func (o Options) withDefaults() Options {
	if o.Recipe == (ranking.Recipe{}) {
		o.Recipe = ranking.DefaultRecipe
	}
	if o.Weights == (ranking.Weights{}) {
		o.Weights = ranking.DefaultWeights
	}
	if o.Dense == (ranking.DenseScale{}) {
		o.Dense = DefaultDenseScale
	}
	if o.DefaultMode == "" {
		o.DefaultMode = ModeAuto
	}
	if o.DefaultLimit <= 0 {
		o.DefaultLimit = DefaultLimit
	}
	o.DefaultLimit = min(o.DefaultLimit, MaxLimit)
	if o.ScanLimit <= 0 {
		o.ScanLimit = DefaultScanLimit
	}
	if o.QueryMaxChars <= 0 {
		o.QueryMaxChars = DefaultQueryMaxChars
	}
	return o
}

// Deps are the ports search works through. Embedder and Vectors may be nil (no
// vectors: dense and auto answer from lexical search with FallbackVectorsDisabled);
// in production they come through a VectorGuard. Messages may be nil (no message
// search); Access may be nil (no last-access).
type Deps struct {
	Analyzer ports.TextAnalyzer
	// Expander, when set, makes the lexical query instead of Analyzer: the
	// question's terms and the related terms that stand in for them.
	Expander QueryExpander
	Lexical  ports.LexicalSearcher
	Memories MemoryReader
	Messages MessageReader
	Embedder QueryEmbedder
	Vectors  VectorSearcher
	Access   *AccessTracker
	Clock    ports.Clock
}

// Service runs the search use case.
type Service struct {
	deps Deps
	opts Options
}

// New builds the service.
func New(deps Deps, opts Options) *Service {
	return &Service{deps: deps, opts: opts.withDefaults()}
}

// Package retrieval is F5: search over a user's memories and messages in the modes
// of seed 000 (full_inject, dense) plus lexical and auto (dense and lexical fused),
// re-ranked by retrieval score, importance, confidence, recency and exact-key
// match with a breakdown of every score; the lexical index that keeps search
// available when vectors are not (lexical.go, indexer.go); the circuit breaker and
// timeout that make a slow or dead vector store cost a request nothing but its
// fused half; and last-access tracking off the request path.
//
// The method is docs/BENCHMARKS.md's "Retrieval quality: LoCoMo" (ranking.Recipe):
// the same analyser for texts and queries, BM25 over a message with its ±2
// neighbours at half weight and its date, the speaker boost, min-max fusion with
// the dense list, ranking.Rerank over ranking.Normalize of the fused scores.
//
// One file per use case; it depends on domain and ports only, and never on fx.
package retrieval

import (
	"time"

	"engram/domain/ranking"
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
	FallbackVectorsDisabled = "vectors_disabled" // no embedder or vector index configured
	FallbackVectorTimeout   = "vector_timeout"   // past ENGRAM_VECTOR_SEARCH_TIMEOUT_MS
	FallbackVectorError     = "vector_error"     // the embedder or the index failed
	FallbackBreakerOpen     = "breaker_open"     // recent failures: vectors are not tried
)

// FallbackReasons lists every reason (metrics pre-register them).
var FallbackReasons = []string{FallbackVectorsDisabled, FallbackVectorTimeout, FallbackVectorError, FallbackBreakerOpen}

// Modes lists every mode.
var Modes = []Mode{ModeAuto, ModeDense, ModeLexical, ModeFullInject}

// Defaults of Options (seed 000's table where it has the setting).
const (
	DefaultLimit         = 6   // LONG_TERM_MEMORY_RETRIEVE_LIMIT
	DefaultScanLimit     = 80  // LONG_TERM_MEMORY_RETRIEVE_SCAN_LIMIT
	MaxLimit             = 100 // API.md
	DefaultVectorTimeout = 150 * time.Millisecond
	MaxQueryLen          = 4000 // characters
)

// Options shape search.
type Options struct {
	Recipe  ranking.Recipe  // zero: ranking.DefaultRecipe
	Weights ranking.Weights // zero: ranking.DefaultWeights
	// DefaultMode is LONG_TERM_MEMORY_RETRIEVE_MODE, used when a request names none.
	DefaultMode Mode
	// DefaultLimit is LONG_TERM_MEMORY_RETRIEVE_LIMIT, used when a request names none.
	DefaultLimit int
	// ScanLimit is LONG_TERM_MEMORY_RETRIEVE_SCAN_LIMIT: full_inject's bound.
	ScanLimit int
	// VectorTimeout is ENGRAM_VECTOR_SEARCH_TIMEOUT_MS: the vector side's deadline
	// (embedding the query and searching) before the answer falls back to lexical.
	VectorTimeout time.Duration
	Breaker       BreakerOptions
	// MaxCachedDocs bounds the lexical documents held in memory (DefaultMaxCachedDocs).
	MaxCachedDocs int
}

func (o Options) withDefaults() Options {
	if o.Recipe == (ranking.Recipe{}) {
		o.Recipe = ranking.DefaultRecipe
	}
	if o.Weights == (ranking.Weights{}) {
		o.Weights = ranking.DefaultWeights
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
	if o.VectorTimeout <= 0 {
		o.VectorTimeout = DefaultVectorTimeout
	}
	return o
}

// Deps are the ports search works through. Embedder and Vectors may be nil (no
// vectors: dense and auto answer from lexical search with FallbackVectorsDisabled);
// Messages may be nil (no message search); Access may be nil (no last-access).
type Deps struct {
	Analyzer ports.TextAnalyzer
	Lexical  ports.LexicalIndex
	Memories MemoryReader
	Messages MessageReader
	Embedder ports.Embedder
	Vectors  ports.VectorIndex
	Access   *AccessTracker
	Clock    ports.Clock
}

// Service runs the search use case.
type Service struct {
	deps    Deps
	opts    Options
	lexical *lexicalSearcher
	breaker *breaker
}

// New builds the service.
func New(deps Deps, opts Options) *Service {
	opts = opts.withDefaults()
	return &Service{
		deps:    deps,
		opts:    opts,
		lexical: newLexicalSearcher(deps.Lexical, opts.Recipe, opts.MaxCachedDocs),
		breaker: newBreaker(deps.Clock, opts.Breaker),
	}
}

// BreakerState is the vector breaker's state (metrics).
func (s *Service) BreakerState() BreakerState { return s.breaker.State() }

package bootstrap

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"go.uber.org/fx"

	"engram/adapters/httpapi"
	"engram/adapters/lexical"
	"engram/adapters/lexicon"
	"engram/adapters/metrics"
	"engram/adapters/oplog"
	"engram/adapters/sqlstore"
	"engram/adapters/textanalysis"
	"engram/app/extraction"
	"engram/app/indexing"
	"engram/app/retrieval"
	"engram/bootstrap/config"
	"engram/domain/memory"
	"engram/domain/ranking"
	"engram/ports"
)

// retrievalModule is search: the lexical index kept by memory writes and by
// the indexer role's message and repair passes, the lexical search engine over it,
// the search use case behind the vector guard with its metrics and route, and
// last-access tracking. Everything is built lazily, when a role needs it.
var retrievalModule = fx.Module("retrieval",
	fx.Provide(
		fx.Private,
		func(s *storage) *sqlstore.LexicalDocs { return sqlstore.NewLexicalDocs(s.db) },
		func(s *storage) ports.LexicalCursors { return sqlstore.NewLexicalCursors(s.db) },
		func(store *sqlstore.LexicalDocs) *lexical.Searcher { return lexical.New(store, lexical.Options{}) },
		newVectorGuard,
		newAccessTracker,
	),
	fx.Provide(
		// The analyser of every indexed text and every query (docs/BENCHMARKS.md).
		func() ports.TextAnalyzer { return textanalysis.New(textanalysis.Options{}) },
	),
	fx.Provide(
		newLexicalIndexer,
		newRetrievalService,
		newSearcher,
		AsRoute(searchRoutes),
	),
)

// indexerRetrieval is the indexer role's share of search: the lexical passes, and
// extraction's duplicate search by vectors (a process with the indexer role keeps
// its vectors fresh, the local index included; without it, extraction compares
// lexically).
var indexerRetrieval = fx.Options(
	fx.Invoke(startLexicalIndexer),
	fx.Provide(newSimilarMemories),
)

// newSimilarMemories finds extraction's duplicate candidates by cosine,
// with the lexical comparison as the fallback when vectors fail. The
// duplicate and merge thresholds compare the stored vectors' cosines when a model
// embeds; the offline embedder's cosines measure word overlap on another scale,
// so without a model the lexical similarity decides (measured in BENCHMARKS.md).
func newSimilarMemories(cfg config.Config, s *storage, mem ports.MemoryStore, h *indexing.Handoff, vectors ports.VectorIndex, log *slog.Logger) extraction.SimilarMemories {
	return &extraction.VectorSimilar{Embedder: h.Producer(), Vectors: vectors, Store: mem, Reader: s.memories,
		Fallback: &extraction.LexicalSimilar{Store: mem}, Cosine: cfg.Embedding.Provider != "local", Logger: log}
}

// newMemoryStore is the memory store every use case writes through: metrics
// outside, and the memory's lexical document written in the transaction of every
// change, so a memory saved through the API is found by the next search (the
// repair pass of the indexer role stays as the safety net).
func newMemoryStore(s *storage, m *metrics.Metrics, an ports.TextAnalyzer) ports.MemoryStore {
	s.memories.IndexLexically(func(mem memory.Memory) (ports.LexicalDoc, bool) { return indexing.MemoryDocument(an, mem) })
	return m.MemoryStore(s.memories)
}

func newLexicalIndexer(s *storage, an ports.TextAnalyzer, docs *sqlstore.LexicalDocs, cursors ports.LexicalCursors, clk ports.Clock, log *slog.Logger) *indexing.LexicalIndexer {
	host, _ := os.Hostname()
	return indexing.NewLexicalIndexer(an, docs, cursors, s.memories, s.messages, clk, indexing.LexicalOptions{
		Holder:   fmt.Sprintf("%s-%d", host, os.Getpid()), // the message pass's lease, one holder per process
		Logger:   log,
		Observer: oplog.Lexical(log, nil), // a line per batch that wrote documents
	})
}

// newAccessTracker writes last_accessed_at in the background while the process runs.
func newAccessTracker(lc fx.Lifecycle, s *storage, log *slog.Logger) *retrieval.AccessTracker {
	a := retrieval.NewAccessTracker(s.memories, retrieval.AccessOptions{Logger: log})
	runWhileUp(lc, a.Run)
	return a
}

// newVectorGuard is the deadline and the circuit breakers around search's vector
// side (ENGRAM_VECTOR_SEARCH_TIMEOUT_MS, ENGRAM_VECTOR_BREAKER_*).
func newVectorGuard(cfg config.Config, clk ports.Clock, log *slog.Logger) *retrieval.VectorGuard {
	return retrieval.NewVectorGuard(clk, retrieval.GuardOptions{
		Timeout: time.Duration(cfg.Vector.SearchTimeoutMS) * time.Millisecond,
		Breaker: retrieval.BreakerOptions{
			Failures: cfg.Vector.BreakerFailures,
			Cooldown: time.Duration(cfg.Vector.BreakerCooldownSec) * time.Second,
		},
		Logger: log,
	})
}

type retrievalParams struct {
	fx.In
	Config   config.Config
	Storage  *storage
	Analyzer ports.TextAnalyzer
	Lexical  *lexical.Searcher
	Guard    *retrieval.VectorGuard
	Access   *retrieval.AccessTracker
	Clock    ports.Clock
	Embedder ports.Embedder    `optional:"true"`
	Vectors  ports.VectorIndex `optional:"true"`
}

func newRetrievalService(p retrievalParams) *retrieval.Service {
	c := p.Config
	deps := retrieval.Deps{
		Analyzer: p.Analyzer, Lexical: p.Lexical, Memories: p.Storage.memories, Messages: p.Storage.messages,
		Access: p.Access, Clock: p.Clock,
	}
	if p.Embedder != nil && p.Vectors != nil {
		deps.Embedder, deps.Vectors = p.Guard.Embedder(p.Embedder), p.Guard.Index(p.Vectors)
	}
	if c.Memory.QueryExpansion {
		// The table is read by the first search of memories (about 0.2 s), not at
		// start-up: a process that never searches memories never pays for it.
		deps.Expander = lexicon.New(p.Analyzer, lexicon.Weights{})
	}
	return retrieval.New(deps, retrieval.Options{
		DefaultMode:   retrieval.Mode(c.Memory.RetrieveMode),
		DefaultLimit:  c.Memory.RetrieveLimit,
		ScanLimit:     c.Memory.RetrieveScanLimit,
		QueryMaxChars: c.Context.QueryMaxChars,
		MinScore:      c.Memory.MinScore,
		Dense:         denseScale(c.Embedding),
		Secrets:       c.Secrets.ScreenMode(),
	})
}

// denseScale is the embedder's cosine scale: the local embedder's measured one, or
// the one configured for a remote model (docs/BENCHMARKS.md "Calibrated relevance"
// says how to measure it).
func denseScale(e config.Embedding) ranking.DenseScale {
	if e.Provider == "local" {
		return ranking.DenseScale{Floor: e.LocalMinCosine, Full: e.LocalFullCosine, Weight: e.LocalDenseWeight}
	}
	return ranking.DenseScale{Floor: e.MinCosine, Full: e.FullCosine, Weight: e.DenseWeight}
}

// newSearcher is the search use case as the API serves it: with its metrics, and
// the busiest users' lexical indexes loaded in the background at start.
func newSearcher(lc fx.Lifecycle, svc *retrieval.Service, lex *lexical.Searcher, guard *retrieval.VectorGuard, m *metrics.Metrics, log *slog.Logger) metrics.Searcher {
	ctx, cancel := context.WithCancel(context.Background())
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			go func() {
				start := time.Now()
				n, err := lex.Warm(ctx, lexical.DefaultWarmUsers)
				if err != nil && ctx.Err() == nil {
					log.Warn("lexical index: warm-up stopped", "users", n, "error", err)
					return
				}
				log.Info("lexical index: warmed the busiest users", "users", n, "took", time.Since(start).Round(time.Millisecond))
			}()
			return nil
		},
		OnStop: func(context.Context) error { cancel(); return nil },
	})
	return m.Search(svc, guard.State)
}

func searchRoutes(s metrics.Searcher) Route {
	return func(api *httpapi.API) { httpapi.RegisterSearch(api, s) }
}

// startLexicalIndexer runs the message and repair passes while the process runs.
func startLexicalIndexer(lc fx.Lifecycle, ix *indexing.LexicalIndexer) { runWhileUp(lc, ix.Run) }

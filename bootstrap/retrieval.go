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
	"engram/app/indexing"
	"engram/app/retrieval"
	"engram/bootstrap/config"
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
		func(feed ports.LexicalFeed) *lexical.Searcher { return lexical.New(feed, lexical.Options{}) },
		newVectorGuard,
		newAccessTracker,
	),
	fx.Provide(
		newLexicalIndexer,
		newRetrievalService,
		newSearcher,
		AsRoute(searchRoutes),
	),
)

// newSimilarMemories finds extraction's duplicate candidates by cosine,
// with the lexical comparison as the fallback when vectors fail. The
// duplicate and merge thresholds compare the stored vectors' cosines when a model
// embeds; the offline embedder's cosines measure word overlap on another scale,
// so without a model the lexical similarity decides (measured in BENCHMARKS.md).

type lexicalIndexerParams struct {
	fx.In
	Analyzer ports.TextAnalyzer
	Docs     ports.LexicalDocs
	Cursors  ports.LexicalCursors
	Memories *sqlstore.MemoryStore
	Messages *sqlstore.MessageStore
	Clock    ports.Clock
	Log      *slog.Logger
}

func newLexicalIndexer(p lexicalIndexerParams) *indexing.LexicalIndexer {
	host, _ := os.Hostname()
	return indexing.NewLexicalIndexer(p.Analyzer, p.Docs, p.Cursors, p.Memories, p.Messages, p.Clock, indexing.LexicalOptions{
		Holder:   fmt.Sprintf("%s-%d", host, os.Getpid()), // the message pass's lease, one holder per process
		Logger:   p.Log,
		Observer: oplog.Lexical(p.Log, nil), // a line per batch that wrote documents
	})
}

// newAccessTracker writes last_accessed_at in the background while the process runs.
func newAccessTracker(lc fx.Lifecycle, memories *sqlstore.MemoryStore, log *slog.Logger) *retrieval.AccessTracker {
	a := retrieval.NewAccessTracker(memories, retrieval.AccessOptions{Logger: log})
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
	Memories *sqlstore.MemoryStore
	Messages *sqlstore.MessageStore
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
		Analyzer: p.Analyzer, Lexical: p.Lexical, Memories: p.Memories, Messages: p.Messages,
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
type searcherParams struct {
	fx.In
	Lifecycle fx.Lifecycle
	Service   *retrieval.Service
	Lexical   *lexical.Searcher
	Guard     *retrieval.VectorGuard
	Metrics   *metrics.Metrics
	Log       *slog.Logger
}

func newSearcher(p searcherParams) metrics.Searcher {
	lc, svc, lex, guard, m, log := p.Lifecycle, p.Service, p.Lexical, p.Guard, p.Metrics, p.Log
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

package bootstrap

import (
	"log/slog"

	"go.uber.org/fx"

	"engram/adapters/sqlstore"
	"engram/app/extraction"
	"engram/app/indexing"
	"engram/bootstrap/config"
	"engram/ports"
)

// indexerRetrievalModule is the indexer role's share of search: the lexical
// passes, and extraction's duplicate search by vectors (a process with the indexer
// role keeps its vectors fresh, the local index included; without it, extraction
// compares lexically).
var indexerRetrievalModule = fx.Module("indexer-retrieval",
	fx.Invoke(startLexicalIndexer),
	fx.Provide(newSimilarMemories),
)

type similarParams struct {
	fx.In
	Config   config.Config
	Memories ports.MemoryStore
	Reader   *sqlstore.MemoryStore
	Handoff  *indexing.Handoff
	Vectors  ports.VectorIndex
	Log      *slog.Logger
}

func newSimilarMemories(p similarParams) extraction.SimilarMemories {
	return &extraction.VectorSimilar{Embedder: p.Handoff.Producer(), Vectors: p.Vectors, Store: p.Memories, Reader: p.Reader,
		Fallback: &extraction.LexicalSimilar{Store: p.Memories}, Cosine: p.Config.Embedding.Provider != "local", Logger: p.Log}
}

// startLexicalIndexer runs the message and repair passes while the process runs.
func startLexicalIndexer(lc fx.Lifecycle, ix *indexing.LexicalIndexer) { runWhileUp(lc, ix.Run) }

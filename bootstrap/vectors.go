package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.uber.org/fx"

	"engram/adapters/httpapi"
	"engram/adapters/llm"
	"engram/adapters/localembed"
	"engram/adapters/localvec"
	"engram/adapters/metrics"
	"engram/adapters/milvus"
	"engram/adapters/pgvector"
	"engram/adapters/sqlstore"
	"engram/app/health"
	"engram/app/indexing"
	"engram/bootstrap/config"
	"engram/ports"
)

// vectorsModule provides the embedder and the vector index (ENGRAM_EMBEDDER,
// ENGRAM_VECTOR_BACKEND) to every role that embeds or searches, and their
// readiness probes. fx builds them only when a role asks, so a process without the
// api and indexer roles never loads the local index.
var vectorsModule = fx.Module("vectors",
	fx.Provide(
		func(m *metrics.Metrics) *metrics.Indexing { return m.Indexing() },
		newEmbedder,
		// Every reader embeds through the handoff's consumer: the indexer reuses
		// the vectors extraction made of its candidates (bootstrap/retrieval.go).
		func(h *indexing.Handoff) ports.Embedder { return h.Consumer() },
		newVectorStore,
		func(v *vectorStore) ports.VectorIndex { return v.index },
		newVectorChecks,
	),
)

// newEmbedder builds the embedder ENGRAM_EMBEDDER names, wrapped with its metrics
// (which count what is really embedded) and the extraction → indexer handoff.
func newEmbedder(cfg config.Config, m *metrics.Indexing) (*indexing.Handoff, error) {
	e, err := buildEmbedder(cfg)
	if err != nil {
		return nil, err
	}
	return indexing.NewHandoff(m.Embedder(e), 0, 0, nil), nil
}

func buildEmbedder(cfg config.Config) (ports.Embedder, error) {
	switch cfg.Embedding.Provider {
	case "local":
		e, err := localembed.New(localembed.Options{Dimension: cfg.Embedding.LocalDim})
		if err != nil {
			return nil, fmt.Errorf("ENGRAM_LOCAL_EMBEDDING_DIM: %w", err)
		}
		return e, nil
	case "openai", "ollama":
		e, err := llm.NewEmbedder(llm.EmbedderOptions{
			Provider:   llm.Provider(cfg.Embedding.Provider),
			BaseURL:    cfg.Embedding.APIBase,
			APIKey:     cfg.Embedding.APIKey,
			Model:      cfg.Embedding.Model,
			Dimension:  cfg.Embedding.Dim,
			MaxRetries: cfg.LLM.MaxRetries,
		})
		if err != nil {
			return nil, fmt.Errorf("ENGRAM_EMBEDDER %s: %w", cfg.Embedding.Provider, err)
		}
		return e, nil
	}
	return nil, fmt.Errorf("ENGRAM_EMBEDDER: unknown embedder %q", cfg.Embedding.Provider)
}

// vectorStore is the vector index of ENGRAM_VECTOR_BACKEND with what operations
// need of it.
type vectorStore struct {
	backend string
	index   ports.VectorIndex
	// ping probes the backing service for /readyz.
	ping func(ctx context.Context) error
	// purger removes a user's vectors (an erasure's step), straight from the
	// backend, past the metrics of index.
	purger ports.UserPurger
	// local is the embedded index with its SQL store; nil for other backends.
	local      *localvec.Durable
	localStore *sqlstore.LocalVectorStore
}

// newVectorStore opens the vector index for the embedder's model and dimension
// (one index per model: vectors of different models are never compared).
type vectorStoreParams struct {
	fx.In
	Lifecycle fx.Lifecycle
	Config    config.Config
	DB        *sqlstore.DB
	Embedder  ports.Embedder
	Metrics   *metrics.Indexing
	Log       *slog.Logger
}

func newVectorStore(p vectorStoreParams) (*vectorStore, error) {
	v, err := openVectorStore(context.Background(), p.Config, p.DB, p.Embedder, p.Log)
	if err != nil {
		return nil, err
	}
	if c, ok := v.index.(interface{ Close(context.Context) error }); ok {
		p.Lifecycle.Append(fx.StopHook(c.Close))
	}
	v.index = p.Metrics.VectorIndex(v.index)
	return v, nil
}

func openVectorStore(ctx context.Context, cfg config.Config, db *sqlstore.DB, emb ports.Embedder, log *slog.Logger) (*vectorStore, error) {
	model, dim := emb.Model(), emb.Dimension()
	switch cfg.Vector.Backend {
	case "local":
		if cfg.IsPostgres() && !(cfg.HasRole(config.RoleAPI) && cfg.HasRole(config.RoleIndexer)) {
			log.Warn("ENGRAM_VECTOR_BACKEND=local keeps vectors in this process: run the api and indexer roles in one process, or use pgvector or milvus to split them")
		}
		store := sqlstore.NewLocalVectorStore(db, model, dim)
		start := time.Now()
		prefilter := cfg.Vector.LocalPrefilterThreshold
		if !localvec.HasInt8Kernel() {
			prefilter = -1 // the int8 scan in plain Go is slower than the exact one
		}
		ix, err := localvec.OpenDurable(ctx, store, localvec.Options{Dimension: dim,
			Prefilter: localvec.PrefilterOptions{Threshold: prefilter}})
		if ix == nil {
			return nil, fmt.Errorf("ENGRAM_VECTOR_BACKEND local: %w", err)
		}
		if err != nil {
			// Unusable rows (another dimension) are skipped; a reindex rewrites them.
			log.Warn("local vector index: some stored vectors were skipped; run `engram reindex` to rebuild them", "error", err)
		}
		log.Info("local vector index loaded", "model", model, "vectors", ix.Index().Len(), "took", time.Since(start).Round(time.Millisecond))
		return &vectorStore{backend: "local", index: ix, purger: ix, ping: func(context.Context) error { return nil }, local: ix, localStore: store}, nil
	case "pgvector":
		if db.Dialect() != sqlstore.DialectPostgres {
			return nil, errors.New("ENGRAM_VECTOR_BACKEND pgvector: needs ENGRAM_DATABASE_URL to be a postgres:// URL")
		}
		ix, err := pgvector.Open(ctx, db.Bun(), pgvector.Options{Model: model, Dimension: dim})
		if err != nil {
			return nil, fmt.Errorf("ENGRAM_VECTOR_BACKEND pgvector: %w", err)
		}
		log.Info("pgvector index ready", "table", ix.Table(), "model", model)
		return &vectorStore{backend: "pgvector", index: ix, purger: ix, ping: ix.Ping}, nil
	case "milvus":
		mc := cfg.Vector.Milvus
		ix, err := milvus.New(milvus.Options{URI: mc.URI, Token: mc.Token, Collection: mc.Collection, Model: model, Dimension: dim})
		if err != nil {
			return nil, fmt.Errorf("MEMORY_MILVUS_URI: %w", err)
		}
		log.Info("milvus vector index configured; it connects in the background", "collection", ix.Collection())
		return &vectorStore{backend: "milvus", index: ix, purger: ix, ping: ix.Ping}, nil
	}
	return nil, fmt.Errorf("ENGRAM_VECTOR_BACKEND: unknown backend %q", cfg.Vector.Backend)
}

// vectorChecks are the /readyz probes of the vector side.
type vectorChecks struct {
	Vector, Embedder httpapi.Check
}

type vectorChecksParams struct {
	fx.In
	Config   config.Config
	Vectors  *vectorStore
	Embedder ports.Embedder
	Recorder *health.Recorder
}

func newVectorChecks(p vectorChecksParams) vectorChecks {
	return vectorChecks{Vector: p.Vectors.ping, Embedder: embedderCheck(p.Config, p.Embedder, p.Recorder)}
}

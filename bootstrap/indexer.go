package bootstrap

import (
	"context"
	"log/slog"
	"time"

	"go.uber.org/fx"

	"engram/adapters/metrics"
	"engram/adapters/oplog"
	"engram/adapters/sqlstore"
	"engram/app/indexing"
	"engram/bootstrap/config"
	"engram/ports"
)

// indexerModule is the indexer role's vector sync: DIRTY/FAILED memories and
// messages → embed → vector upsert → SYNCED, polled every
// MEMORY_INDEX_WORKER_INTERVAL_SEC and woken by in-process writes.
var indexerModule = fx.Module("indexer",
	fx.Provide(fx.Private, newVectorIndexer, newIndexRunner),
	fx.Invoke(startVectorIndexer),
)

type vectorIndexerParams struct {
	fx.In
	Config   config.Config
	Queue    ports.VectorQueue
	Embedder ports.Embedder
	Index    ports.VectorIndex
	Clock    ports.Clock
	Metrics  *metrics.Indexing
	Log      *slog.Logger
}

func newVectorIndexer(p vectorIndexerParams) *indexing.Indexer {
	cfg := p.Config
	return indexing.New(p.Queue, p.Embedder, p.Index, p.Clock, indexing.Options{
		Worker:    workerName(),
		BatchSize: cfg.IndexWorker.BatchSize,
		// The extraction worker's lease setting: how long a dead process's claims
		// hold their items (a batch's embedder and index calls are bounded by a
		// minute each, within the default 200 s).
		Lease: time.Duration(cfg.Memory.ClaimLeaseSec) * time.Second,
	}, oplog.Indexing(p.Log, p.Metrics)) // a line per batch, then the metrics
}

type indexRunnerParams struct {
	fx.In
	Config  config.Config
	Indexer *indexing.Indexer
	Signal  *indexing.Signal
	Log     *slog.Logger
}

func newIndexRunner(p indexRunnerParams) *indexing.Runner {
	return indexing.NewRunner(p.Indexer, indexing.RunnerOptions{
		Interval: time.Duration(p.Config.IndexWorker.IntervalSec) * time.Second,
		Signal:   p.Signal,
		Logger:   p.Log,
	})
}

// startVectorIndexer starts the loop with the app and stops it before the vector
// index and the database close; neither hook blocks beyond fx's timeouts.
type vectorIndexerStart struct {
	fx.In
	Lifecycle fx.Lifecycle
	Config    config.Config
	Runner    *indexing.Runner
	Embedder  ports.Embedder
	Vectors   *vectorStore
	Queue     *sqlstore.VectorQueue
	Log       *slog.Logger
}

func startVectorIndexer(p vectorIndexerStart) {
	lc, cfg, r, emb, v, log := p.Lifecycle, p.Config, p.Runner, p.Embedder, p.Vectors, p.Log
	if !cfg.IndexWorker.Enabled {
		log.Warn("MEMORY_INDEX_WORKER_ENABLED is false: vectors are not kept in step; search answers lexically where they are missing")
		return
	}
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			r.Start()
			log.Info("vector indexer started", "embedder", emb.Model(), "backend", v.backend,
				"batch_size", cfg.IndexWorker.BatchSize, "interval_sec", cfg.IndexWorker.IntervalSec)
			go warnOtherModels(p.Queue, emb.Model(), log)
			return nil
		},
		OnStop: r.Stop,
	})
}

// warnOtherModels tells the operator when vectors of another embedding model are
// recorded as synced: the model changed, and they are missing from this model's
// index until `engram reindex` (or POST /v1/admin/reindex) queues them.
func warnOtherModels(q *sqlstore.VectorQueue, model string, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	mems, msgs, err := q.CountOtherModels(ctx, model)
	if err != nil {
		log.Debug("indexer: could not count vectors of other models", "error", err)
		return
	}
	if mems+msgs > 0 {
		log.Warn("vectors were built with another embedding model; they are not in this model's index: run `engram reindex`",
			"model", model, "memories", mems, "messages", msgs)
	}
}

package bootstrap

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/fx"

	"engram/adapters/httpapi"
	"engram/adapters/metrics"
	"engram/adapters/oplog"
	"engram/adapters/sqlstore"
	"engram/app/indexing"
	"engram/bootstrap/config"
	"engram/ports"
)

// indexingModule is what every role shares of vector sync: the store the indexer
// claims from, the signal in-process writes raise, the reindex use case and its
// route, and the backlog metrics.
var indexingModule = fx.Module("indexing",
	fx.Provide(
		func(s *storage) *sqlstore.VectorQueue { return sqlstore.NewVectorQueue(s.db) },
		func(q *sqlstore.VectorQueue) ports.VectorQueue { return q },
		func(q *sqlstore.VectorQueue) ports.VectorRequeuer { return q },
		indexing.NewSignal,
		func(store ports.VectorRequeuer, clk ports.Clock, sig *indexing.Signal) *indexing.Reindexer {
			return indexing.NewReindexer(store, clk, sig.Notify)
		},
		AsRoute(adminRoutes),
	),
	fx.Invoke(func(x *metrics.Indexing, store *sqlstore.VectorQueue) { x.Backlog(store.Backlog) }),
)

// writeSignals wake the indexer after in-process writes: every memory change and
// every stored message. They decorate the stores for the whole app, so the use
// cases of every module write through them.
var writeSignals = fx.Options(
	fx.Decorate(func(s ports.MemoryStore, sig *indexing.Signal) ports.MemoryStore {
		return indexing.NotifyMemoryWrites(s, sig)
	}),
	fx.Decorate(func(s ports.MessageLog, sig *indexing.Signal) ports.MessageLog {
		return indexing.NotifyMessageIngest(s, sig)
	}),
)

// indexerModule is the indexer role's vector sync: DIRTY/FAILED memories and
// messages → embed → vector upsert → SYNCED, polled every
// MEMORY_INDEX_WORKER_INTERVAL_SEC and woken by in-process writes.
var indexerModule = fx.Module("indexer",
	fx.Provide(fx.Private, newVectorIndexer, newIndexRunner),
	fx.Invoke(startVectorIndexer),
)

func adminRoutes(r *indexing.Reindexer) Route {
	return func(api *httpapi.API) { httpapi.RegisterAdmin(api, r) }
}

func newVectorIndexer(cfg config.Config, store ports.VectorQueue, emb ports.Embedder, ix ports.VectorIndex,
	clk ports.Clock, x *metrics.Indexing, log *slog.Logger,
) *indexing.Indexer {
	return indexing.New(store, emb, ix, clk, indexing.Options{
		Worker:    workerName(),
		BatchSize: cfg.IndexWorker.BatchSize,
		// The extraction worker's lease setting: how long a dead process's claims
		// hold their items (a batch's embedder and index calls are bounded by a
		// minute each, within the default 200 s).
		Lease: time.Duration(cfg.Memory.ClaimLeaseSec) * time.Second,
	}, oplog.Indexing(log, x)) // a line per batch, then the metrics
}

func newIndexRunner(cfg config.Config, ix *indexing.Indexer, sig *indexing.Signal, log *slog.Logger) *indexing.Runner {
	return indexing.NewRunner(ix, indexing.RunnerOptions{
		Interval: time.Duration(cfg.IndexWorker.IntervalSec) * time.Second,
		Signal:   sig,
		Logger:   log,
	})
}

// startVectorIndexer starts the loop with the app and stops it before the vector
// index and the database close; neither hook blocks beyond fx's timeouts.
func startVectorIndexer(lc fx.Lifecycle, cfg config.Config, r *indexing.Runner, emb ports.Embedder, v *vectorStore, s *storage, log *slog.Logger) {
	if !cfg.IndexWorker.Enabled {
		log.Warn("MEMORY_INDEX_WORKER_ENABLED is false: vectors are not kept in step; search answers lexically where they are missing")
		return
	}
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			r.Start()
			log.Info("vector indexer started", "embedder", emb.Model(), "backend", v.backend,
				"batch_size", cfg.IndexWorker.BatchSize, "interval_sec", cfg.IndexWorker.IntervalSec)
			go warnOtherModels(s, emb.Model(), log)
			return nil
		},
		OnStop: r.Stop,
	})
}

// warnOtherModels tells the operator when vectors of another embedding model are
// recorded as synced: the model changed, and they are missing from this model's
// index until `engram reindex` (or POST /v1/admin/reindex) queues them.
func warnOtherModels(s *storage, model string, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	mems, msgs, err := sqlstore.NewVectorQueue(s.db).CountOtherModels(ctx, model)
	if err != nil {
		log.Debug("indexer: could not count vectors of other models", "error", err)
		return
	}
	if mems+msgs > 0 {
		log.Warn("vectors were built with another embedding model; they are not in this model's index: run `engram reindex`",
			"model", model, "memories", mems, "messages", msgs)
	}
}

// reindexCommand is `engram reindex`: every tenant's memories and messages are
// marked DIRTY, and the indexer roles rebuild their vectors in the background.
func reindexCommand(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "reindex",
		Short: "Mark every memory and message DIRTY so the indexers rebuild all vectors (after a model or backend change)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := g.load()
			if err != nil {
				return err
			}
			return withDatabase(cmd.Context(), cfg, true, func(ctx context.Context, s *storage) error {
				re := indexing.NewReindexer(sqlstore.NewVectorQueue(s.db), systemClock(), nil)
				n, err := re.ReindexAll(ctx)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "queued %d memories and %d messages for the indexer\n", n.Memories, n.Messages)
				return nil
			})
		},
	}
}

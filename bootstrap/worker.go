package bootstrap

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"go.uber.org/fx"

	"engram/adapters/llm"
	"engram/adapters/metrics"
	"engram/adapters/oplog"
	"engram/adapters/rules"
	"engram/app/extraction"
	"engram/app/health"
	"engram/app/lifecycle"
	"engram/app/messages"
	"engram/bootstrap/config"
	"engram/configs/prompts"
	"engram/domain/candidate"
	"engram/domain/retry"
	"engram/ports"
)

// workerModule is the worker role: the extraction pipeline over due messages and
// the background jobs (consolidation).
var workerModule = fx.Module("worker",
	fx.Provide(
		fx.Private,
		newExtractionStages,
		newPipeline,
		func(m *metrics.Metrics) *metrics.Extraction { return m.Extraction() },
		newJobRunner,
	),
	fx.Provide(
		newRunner,
		// Ingestion in this process wakes the runner when messages become due.
		func(r *extraction.Runner) messages.Notifier { return r },
	),
	fx.Invoke(startWorker),
)

// stages are the extractor and refiners ENGRAM_LLM_PROVIDER selects.
type stages struct {
	extractor ports.Extractor
	refiner   ports.Refiner
	fallback  ports.Refiner // deterministic; nil when refiner already is
	// gate and budget spare model calls (bootstrap/cost.go); nil with the rules.
	gate   extraction.Gate
	budget ports.LLMBudget
}

// newExtractionStages picks the offline rules or the LLM. With an LLM, the rule
// refiner stands by for users without memories (no call is worth it) and for
// refine failures; the pipeline's prefilter is in front of either.
func newExtractionStages(cfg config.Config, rec *health.Recorder, log *slog.Logger) (stages, error) {
	bounds := candidate.Boundaries{MinConfidence: cfg.Memory.MinConfidence}
	ruleRefiner := rules.NewRefiner(rules.RefinerOptions{ReuseThreshold: cfg.Memory.DuplicateSimilarity, Boundaries: bounds})
	if cfg.LLM.Provider == "rules" {
		return stages{extractor: rules.NewExtractor(rules.ExtractorOptions{Boundaries: bounds}), refiner: ruleRefiner}, nil
	}
	client, set, err := newLLMClient(cfg, time.Duration(cfg.Memory.ExtractTimeoutSec)*time.Second)
	if err != nil {
		return stages{}, err
	}
	g, err := newGate()
	if err != nil {
		return stages{}, err
	}
	log.Info("extraction uses an LLM", "model", client.Model(), "extract_prompt", set.Origin(prompts.Extract))
	// The model's calls report into readiness (llm: degraded, down, up again).
	return stages{
		extractor: rec.Extractor(llm.NewExtractor(client, llm.ExtractorOptions{Prompts: set, ContextMaxChars: cfg.Memory.ExtractContextMaxChars, Logger: log})),
		refiner:   rec.Refiner(llm.NewRefiner(client, llm.RefinerOptions{Prompts: set, Logger: log})),
		fallback:  ruleRefiner,
		gate:      g,
		budget:    newBudget(cfg),
	}, nil
}

type pipelineParams struct {
	fx.In
	Config   config.Config
	Stages   stages
	Memories ports.MemoryStore
	Messages extraction.ContextReader
	Clock    ports.Clock
	IDs      ports.IDs
	// Similar is the indexer role's (bootstrap/retrieval.go): vector similarity
	// where this process keeps vectors fresh; without it extraction compares
	// lexically.
	Similar extraction.SimilarMemories `optional:"true"`
	// Summaries are the sessions module's, where sessions are served.
	Summaries extraction.Summaries `optional:"true"`
	// Profiles (the profiles module) receives identity slots; without it they
	// are dropped.
	Profiles extraction.ProfileSlots `optional:"true"`
}

func newPipeline(p pipelineParams) *extraction.Pipeline {
	cfg, st := p.Config, p.Stages
	m := cfg.Memory
	return extraction.New(extraction.Deps{
		Extractor: st.extractor, Refiner: st.refiner, FallbackRefiner: st.fallback,
		Memories: p.Memories, Messages: p.Messages, Clock: p.Clock, IDs: p.IDs, Similar: p.Similar,
		Gate: st.gate, Budget: st.budget, Summaries: p.Summaries, Profiles: p.Profiles,
	}, extraction.Options{
		Boundaries:          candidate.Boundaries{MinConfidence: m.MinConfidence},
		MaxWriteItems:       m.MaxWriteItems,
		DuplicateSimilarity: m.DuplicateSimilarity,
		MergeSimilarity:     m.MergeSimilarity,
		ContextMaxChars:     m.ExtractContextMaxChars,
		ExtractTimeout:      time.Duration(m.ExtractTimeoutSec) * time.Second,
		UpsertTimeout:       time.Duration(m.UpsertTimeoutSec) * time.Second,
		Retry:               retry.Policy{MaxAttempts: m.MaxAttempts},
		Policy:              memoryPolicy(cfg),
		MaxCallsInFlight:    m.WorkerConcurrency,
	})
}

// workerName is unique per process, and says where a claim came from.
func workerName() string {
	host, _ := os.Hostname()
	if host == "" {
		host = "engram"
	}
	return fmt.Sprintf("%s-%d-%d", strings.ReplaceAll(host, " ", "_"), os.Getpid(), time.Now().UnixNano()%1_000_000)
}

type runnerParams struct {
	fx.In
	Config config.Config
	// Queue is the message store, marking profiles for a refresh (bootstrap/profiles.go).
	Queue    extraction.Queue
	Pipeline *extraction.Pipeline
	Clock    ports.Clock
	Metrics  *metrics.Extraction
	Log      *slog.Logger
}

func newRunner(p runnerParams) *extraction.Runner {
	cfg, log := p.Config, p.Log
	m := cfg.Memory
	lease := time.Duration(m.ClaimLeaseSec) * time.Second
	if run := time.Duration(m.ExtractTimeoutSec+m.UpsertTimeoutSec) * time.Second; lease <= run {
		log.Warn("LONG_TERM_MEMORY_CLAIM_LEASE_SEC is not longer than the extract and upsert timeouts together; a slow run may lose its claim to another worker",
			"lease", lease, "timeouts", run)
	}
	return extraction.NewRunner(p.Queue, p.Pipeline, p.Clock, extraction.RunnerOptions{
		Worker:       workerName(),
		PollInterval: time.Second,
		ScanEnabled:  m.ScanEnabled,
		ScanInterval: time.Duration(m.ScanIntervalSec) * time.Second,
		Lease:        lease,
		Concurrency:  m.WorkerConcurrency,
		Logger:       log,
		Observer:     oplog.Extraction(log, p.Metrics), // a line per outcome, then the metrics
	})
}

type jobRunnerParams struct {
	fx.In
	Service  *lifecycle.Service
	Handlers []jobHandler `group:"job_handlers"` // erasures (bootstrap/erasure.go) and later kinds
	Log      *slog.Logger
}

func newJobRunner(p jobRunnerParams) *lifecycle.JobRunner {
	handlers := make(map[ports.JobKind]lifecycle.JobHandler, len(p.Handlers))
	for _, h := range p.Handlers {
		handlers[h.kind] = h.handler
	}
	return lifecycle.NewJobRunner(p.Service, lifecycle.JobRunnerOptions{Worker: workerName(), Logger: p.Log, Handlers: handlers})
}

// startWorker starts the loops with the app and stops them before the database
// closes; neither hook blocks beyond fx's timeouts.
type workerStart struct {
	fx.In
	Lifecycle fx.Lifecycle
	Config    config.Config
	Runner    *extraction.Runner
	Jobs      *lifecycle.JobRunner
	Log       *slog.Logger
}

func startWorker(p workerStart) {
	lc, cfg, r, jobs, log := p.Lifecycle, p.Config, p.Runner, p.Jobs, p.Log
	if !cfg.Memory.Enabled {
		// Jobs still run: an erasure must complete whatever extraction does.
		log.Warn("LONG_TERM_MEMORY_ENABLED is false: messages are stored but not extracted")
		lc.Append(fx.Hook{
			OnStart: func(context.Context) error { jobs.Start(); return nil },
			OnStop:  jobs.Stop,
		})
		return
	}
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			r.Start()
			jobs.Start()
			log.Info("extraction worker started", "extractor", cfg.LLM.Provider,
				"debounce_sec", cfg.Memory.DebounceSec, "scan", cfg.Memory.ScanEnabled)
			return nil
		},
		OnStop: func(ctx context.Context) error {
			errR := r.Stop(ctx)
			errJ := jobs.Stop(ctx)
			if errR != nil {
				return errR
			}
			return errJ
		},
	})
}

package bootstrap

import (
	"context"
	"log/slog"
	"maps"
	"time"

	"go.uber.org/fx"

	"engram/adapters/httpapi"
	"engram/adapters/metrics"
	"engram/app/contextbuild"
	"engram/app/profiles"
	"engram/app/retrieval"
	"engram/bootstrap/config"
	"engram/domain/erasure"
	"engram/domain/promptctx"
	"engram/ports"
)

// contextModule is the context call and its traces: the trace store and its
// write-behind recorder (every role: the erasure purges traces wherever it runs),
// the context use case with its metrics, route and memory_context tool, and, in
// the scheduler role, the sweep of traces past their retention.
var contextModule = fx.Module("context",
	fx.Provide(
		newTraceRecorder,
		newContextService,
		AsRoute(contextRoutes),
		AsTool(func(svc metrics.ContextService) httpapi.Tool { return httpapi.MemoryContextTool(svc) }),
	),
	AsPurger("traces", erasure.PhaseTruth, func(r *contextbuild.TraceRecorder) ports.UserPurger { return r }),
	fx.Invoke(startTraceRecorder, startTraceSweep),
)

func newTraceRecorder(store ports.TraceStore, m *metrics.Metrics, log *slog.Logger) *contextbuild.TraceRecorder {
	r := contextbuild.NewTraceRecorder(store, contextbuild.RecorderOptions{Logger: log})
	m.GaugeFunc("engram_trace_pending", "Context traces handed to the writer and not yet stored.",
		func(context.Context) (int64, error) { return int64(r.Pending()), nil })
	return r
}

// startTraceRecorder writes the handed-over traces while the process runs, and
// what is left when it stops.
func startTraceRecorder(lc fx.Lifecycle, r *contextbuild.TraceRecorder) { runWhileUp(lc, r.Run) }

// startTraceSweep runs the sweep of old traces in the scheduler role.
type traceSweepParams struct {
	fx.In
	Lifecycle fx.Lifecycle
	Config    config.Config
	Store     ports.TraceStore
	Clock     ports.Clock
	Log       *slog.Logger
}

func startTraceSweep(p traceSweepParams) {
	lc, cfg, log := p.Lifecycle, p.Config, p.Log
	if !cfg.HasRole(config.RoleScheduler) {
		return
	}
	sw := contextbuild.NewSweeper(p.Store, p.Clock, contextbuild.SweepOptions{
		Retention: traceRetention(cfg), Interval: time.Duration(cfg.Traces.SweepIntervalSec) * time.Second, Logger: log,
	})
	runWhileUp(lc, sw.Run)
}

func traceRetention(cfg config.Config) time.Duration {
	return time.Duration(cfg.Traces.RetentionDays) * 24 * time.Hour
}

// newContextService is the context use case with its metrics. Sessions are
// optional: a process without the api or scheduler role (`engram mcp --roles
// worker`) has no session store, and its context calls read no session.
type contextParams struct {
	fx.In
	Config   config.Config
	Search   *retrieval.Service
	Recorder *contextbuild.TraceRecorder
	Sessions ports.SessionStore `optional:"true"` // the sessions module's
	Profiles *profiles.Service
	Analyzer ports.TextAnalyzer
	Erasures ports.ErasureStore
	Clock    ports.Clock
	IDs      ports.IDs
	Metrics  *metrics.Metrics
	Standing contextbuild.StandingReader
}

func newContextService(p contextParams) metrics.ContextService {
	cfg, recorder := p.Config, p.Recorder
	x := cfg.Context
	lang, _ := promptctx.ParseLanguage(x.Language)
	deps := contextbuild.Deps{
		Retriever: ContextRetriever{Search: p.Search, MessagesMode: MessagesModeFor(cfg.Memory.RetrieveMode)},
		Sessions:  p.Sessions, Profiles: p.Profiles, Analyzer: p.Analyzer, Standing: p.Standing,
		Traces: recorder, Reader: recorder, Erasures: p.Erasures, Clock: p.Clock, IDs: p.IDs,
	}
	svc := contextbuild.New(deps, contextbuild.Options{
		Layout:      promptctx.Layout{Header: x.Header, Language: lang},
		BudgetChars: x.BudgetChars, MaxMemories: cfg.Memory.RetrieveLimit, MaxEpisodes: x.MaxEpisodes, RecentMessages: x.RecentMessages,
		MinScore: cfg.Memory.MinScore, IncludeInstructionLike: x.IncludeInstructionLike, Retention: traceRetention(cfg),
		Shares: contextShares(x), StandingMinImportance: x.StandingMinImportance, QueryMaxChars: x.QueryMaxChars,
		Secrets: cfg.Secrets.ScreenMode(),
	})
	return p.Metrics.ContextCalls(svc)
}

// contextShares are the packer's shares with the configured standing share.
func contextShares(x config.Context) map[promptctx.Section]float64 {
	shares := maps.Clone(promptctx.DefaultShares)
	shares[promptctx.Standing] = x.StandingShare
	return shares
}

func contextRoutes(svc metrics.ContextService) Route {
	return func(api *httpapi.API) { httpapi.RegisterContext(api, svc) }
}

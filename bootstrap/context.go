package bootstrap

import (
	"context"
	"log/slog"
	"maps"
	"time"

	"go.uber.org/fx"

	"engram/adapters/contextsearch"
	"engram/adapters/httpapi"
	"engram/adapters/metrics"
	"engram/adapters/sqlstore"
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
		fx.Private,
		func(s *storage) ports.TraceStore { return sqlstore.NewTraceStore(s.db) },
		func(s *storage) contextbuild.StandingReader { return s.memories },
	),
	fx.Provide(
		newTraceRecorder,
		fx.Annotate(newContextService, fx.ParamTags("", "", "", `optional:"true"`, "", "", "", "", "", "", "")),
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
func startTraceSweep(lc fx.Lifecycle, cfg config.Config, store ports.TraceStore, clk ports.Clock, log *slog.Logger) {
	if !cfg.HasRole(config.RoleScheduler) {
		return
	}
	sw := contextbuild.NewSweeper(store, clk, contextbuild.SweepOptions{
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
func newContextService(cfg config.Config, search *retrieval.Service, recorder *contextbuild.TraceRecorder, store ports.SessionStore,
	prof *profiles.Service, an ports.TextAnalyzer, erasures ports.ErasureStore, clk ports.Clock, ids ports.IDs, m *metrics.Metrics,
	standing contextbuild.StandingReader,
) metrics.ContextService {
	x := cfg.Context
	lang, _ := promptctx.ParseLanguage(x.Language)
	deps := contextbuild.Deps{
		Retriever: contextsearch.Retriever{Search: search, MessagesMode: contextsearch.MessagesModeFor(cfg.Memory.RetrieveMode)}, Sessions: store, Profiles: prof, Analyzer: an, Standing: standing,
		Traces: recorder, Reader: recorder, Erasures: erasures, Clock: clk, IDs: ids,
	}
	svc := contextbuild.New(deps, contextbuild.Options{
		Layout:      promptctx.Layout{Header: x.Header, Language: lang},
		BudgetChars: x.BudgetChars, MaxMemories: cfg.Memory.RetrieveLimit, MaxEpisodes: x.MaxEpisodes, RecentMessages: x.RecentMessages,
		MinScore: cfg.Memory.MinScore, IncludeInstructionLike: x.IncludeInstructionLike, Retention: traceRetention(cfg),
		Shares: contextShares(x), StandingMinImportance: x.StandingMinImportance, QueryMaxChars: x.QueryMaxChars,
		Secrets: cfg.Secrets.ScreenMode(),
	})
	return m.ContextCalls(svc)
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

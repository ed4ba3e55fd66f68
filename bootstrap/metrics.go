package bootstrap

import (
	"log/slog"
	"net/http"

	"go.uber.org/fx"

	"engram/adapters/httpapi"
	"engram/adapters/metrics"
	"engram/adapters/sqlstore"
	"engram/app/health"
	"engram/bootstrap/config"
)

// metricsModule serves /metrics, /healthz and /readyz on ENGRAM_METRICS_ADDR, for
// processes without the api role (a worker or indexer scaled out alone) whose
// metrics and probes would otherwise have no endpoint. With the api role they are
// on the API's address too.
var metricsModule = fx.Module("metrics",
	fx.Provide(newMetricsServer),
	fx.Invoke(func(metricsServer) {}), // listening is what this module is for
)

// metricsServer is the listener of ENGRAM_METRICS_ADDR, started with the app.
type metricsServer struct{}

type metricsServerParams struct {
	fx.In
	Config   config.Config
	Metrics  *metrics.Metrics
	Log      *slog.Logger
	DB       *sqlstore.DB
	Vectors  vectorChecks
	Recorder *health.Recorder
	Redis    redisCheck `optional:"true"` // the indexer reads no sessions
}

func newMetricsServer(lc fx.Lifecycle, p metricsServerParams) metricsServer {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", p.Metrics.Handler())
	httpapi.ProbeHandlers(mux, readBuildInfo().Version, httpapi.Checks{
		SQL: sqlCheck(p.DB, p.Recorder), Redis: httpapi.Check(p.Redis),
		Vector: p.Vectors.Vector, LLM: llmCheck(p.Config, p.Recorder), Embedder: p.Vectors.Embedder,
	})
	serveHTTP(lc, "ENGRAM_METRICS_ADDR", p.Config.HTTP.MetricsAddr, mux, p.Config, p.Log)
	return metricsServer{}
}

package bootstrap

import (
	"log/slog"
	"net/http"

	"go.uber.org/fx"

	"engram/adapters/metrics"
	"engram/bootstrap/config"
)

// metricsModule serves /metrics and /healthz on ENGRAM_METRICS_ADDR, for processes
// without the api role (a worker or indexer scaled out alone) whose metrics would
// otherwise have no endpoint. With the api role they are on the API's address too.
var metricsModule = fx.Module("metrics", fx.Invoke(startMetricsServer))

func startMetricsServer(lc fx.Lifecycle, cfg config.Config, m *metrics.Metrics, log *slog.Logger) {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ok"}` + "\n"))
	})
	serveHTTP(lc, "ENGRAM_METRICS_ADDR", cfg.HTTP.MetricsAddr, mux, cfg, log)
}

package bootstrap

import (
	"log/slog"
	"os"
	"strings"
	"time"

	"go.uber.org/fx"

	"engram/adapters/httpapi"
	"engram/bootstrap/config"
)

// serve runs the roles of cfg until SIGINT or SIGTERM, then stops them in reverse
// order: the HTTP server drains in-flight requests before the database closes.
func serve(cfg config.Config) error {
	log := newLogger(cfg)
	log.Info("engram starting", "version", readBuildInfo().Version, "roles", strings.Join(cfg.Roles, ","))
	app := fx.New(
		appOptions(cfg),
		fx.Replace(log),
		fx.Invoke(announce), // last: its start hook runs once everything else has started
		fx.StopTimeout(time.Duration(cfg.HTTP.ShutdownTimeoutSec+5)*time.Second),
	)
	return runApp(app, cfg, log)
}

// appOptions is the whole process: the core every role needs, then one module per
// role. A later step adds a role by adding a module here.
func appOptions(cfg config.Config) fx.Option {
	opts := []fx.Option{
		fx.Supply(cfg),
		fx.WithLogger(fxLogger), // fx's own events only at debug
		coreModule,
		storageModule, // bootstrap/storage.go
		healthModule,
		embedderHealth, // bootstrap/health.go
		conversationsModule,
		vectorsModule,
		indexingModule,
		retrievalModule,
		profilesModule,
		erasureModule,
		toolsModule,
		contextModule,            // bootstrap/context.go
		agentConversationsModule, // bootstrap/agentconv.go
		mem0Module,               // bootstrap/mem0.go
		addsModule,               // bootstrap/adds.go
	}
	if cfg.HasRole(config.RoleAPI) || cfg.HasRole(config.RoleScheduler) || cfg.HasRole(config.RoleWorker) {
		// The worker reads sessions too: profile refreshes and the erasure's purge.
		opts = append(opts, sessionsModule) // bootstrap/sessions.go
	}
	if cfg.HasRole(config.RoleAPI) {
		opts = append(opts, portabilityModule) // bootstrap/portability.go
	}
	if cfg.HasRole(config.RoleAPI) {
		opts = append(opts, apiModule)
	}
	if cfg.HasRole(config.RoleWorker) {
		opts = append(opts, workerModule, profileWorkerModule)
	}
	if cfg.HasRole(config.RoleIndexer) {
		opts = append(opts, indexerRetrievalModule, indexerModule)
	}
	if cfg.HasRole(config.RoleScheduler) {
		opts = append(opts, schedulerModule, sessionsSchedulerModule)
	}
	if cfg.HTTP.MetricsAddr != "" {
		opts = append(opts, metricsModule)
	}
	return fx.Options(opts...)
}

func newLogger(cfg config.Config) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.Log.Level))
	hopts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewTextHandler(os.Stderr, hopts)
	if cfg.Log.Format == "json" {
		h = slog.NewJSONHandler(os.Stderr, hopts)
	}
	log := slog.New(httpapi.WithRequestIDs(h)) // a line logged with a request's context names the request
	slog.SetDefault(log)
	return log
}

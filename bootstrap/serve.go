package bootstrap

import (
	"context"
	"log/slog"
	"os"
	"time"

	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"

	"engram/bootstrap/config"
)

// serve runs the roles of cfg until SIGINT or SIGTERM, then stops them in reverse
// order: the HTTP server drains in-flight requests before the database closes.
func serve(cfg config.Config) error {
	app := fx.New(
		appOptions(cfg),
		fx.StopTimeout(time.Duration(cfg.HTTP.ShutdownTimeoutSec+5)*time.Second),
	)
	if err := app.Err(); err != nil {
		return err
	}
	app.Run()
	return nil
}

// appOptions is the whole process: the core every role needs, then one module per
// role. A later step adds a role by adding a module here.
func appOptions(cfg config.Config) fx.Option {
	opts := []fx.Option{
		fx.Supply(cfg),
		fx.WithLogger(func(log *slog.Logger) fxevent.Logger {
			l := &fxevent.SlogLogger{Logger: log}
			l.UseLogLevel(slog.LevelDebug) // fx's own chatter only at debug
			return l
		}),
		coreModule,
		conversationsModule,
		vectorsModule,
		indexingModule,
		writeSignals,
		retrievalModule,
	}
	if cfg.HasRole(config.RoleAPI) || cfg.HasRole(config.RoleScheduler) {
		opts = append(opts, sessionsModule) // bootstrap/sessions.go
	}
	if cfg.HasRole(config.RoleAPI) {
		opts = append(opts, apiModule)
	}
	if cfg.HasRole(config.RoleWorker) {
		opts = append(opts, workerModule)
	}
	if cfg.HasRole(config.RoleIndexer) {
		opts = append(opts, indexerRetrieval, indexerModule)
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
	log := slog.New(h)
	slog.SetDefault(log)
	return log
}

// withDatabase opens the truth store for a one-shot command.
func withDatabase(ctx context.Context, cfg config.Config, migrate bool, fn func(context.Context, *storage) error) error {
	if ctx == nil {
		ctx = context.Background()
	}
	s, err := openStorage(ctx, cfg, migrate)
	if err != nil {
		return err
	}
	defer s.Close()
	return fn(ctx, s)
}

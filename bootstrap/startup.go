package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"go.uber.org/dig"
	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"

	"engram/adapters/sqlstore"
	"engram/bootstrap/config"
)

// runApp starts the app, waits for SIGINT or SIGTERM and stops it, saying what it
// does in one line per step. A start-up failure comes back as one error (the root
// cause, never fx's trace); Run prints it as the last line.
func runApp(app *fx.App, cfg config.Config, log *slog.Logger) error {
	if err := app.Err(); err != nil {
		return startupError(err)
	}
	started := time.Now()
	startCtx, cancel := context.WithTimeout(context.Background(), app.StartTimeout())
	defer cancel()
	if err := app.Start(startCtx); err != nil {
		return startupError(err)
	}
	log.Info("engram started", "took", time.Since(started).Round(time.Millisecond))
	sig := <-app.Wait()
	log.Info("engram stopping", "signal", sig.Signal.String(), "within", app.StopTimeout())
	stopping := time.Now()
	stopCtx, cancelStop := context.WithTimeout(context.Background(), app.StopTimeout())
	defer cancelStop()
	if err := app.Stop(stopCtx); err != nil {
		// Stopped anyway: report what did not stop cleanly, once.
		log.Warn("engram stopped with errors", "took", time.Since(stopping).Round(time.Millisecond), "error", startupError(err))
		return nil
	}
	log.Info("engram stopped", "took", time.Since(stopping).Round(time.Millisecond))
	return nil
}

// fxLogger sends fx's own events to slog at debug, errors included: a failure
// reaches the operator once, as the error runApp returns.
func fxLogger(log *slog.Logger) fxevent.Logger {
	l := &fxevent.SlogLogger{Logger: log}
	l.UseLogLevel(slog.LevelDebug)
	l.UseErrorLevel(slog.LevelDebug)
	return l
}

// startupError is the root cause of what fx reports: dig's wrapping names Go
// functions and files, which say nothing to an operator. Constructors and hooks
// already put the setting to fix and what to do in their errors.
func startupError(err error) error {
	cause := dig.RootCause(err)
	if cause == nil {
		cause = err
	}
	return errors.New(oneLine(cause.Error()))
}

// oneLine joins the lines of a joined error with "; ".
func oneLine(s string) string {
	lines := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' })
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, "; ")
}

// listenError says why the address cannot be used and what to do.
func listenError(setting, addr string, err error) error {
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return fmt.Errorf("%s: %s is already in use (address already in use); stop the other process or set %s to a free port", setting, addr, setting)
	case errors.Is(err, syscall.EACCES):
		return fmt.Errorf("%s: not allowed to listen on %s (permission denied); use a port above 1023", setting, addr)
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return fmt.Errorf("%s: %s is not an address of this machine (cannot assign requested address); use one of its addresses or 127.0.0.1", setting, addr)
	}
	return fmt.Errorf("%s: cannot listen on %s (%s); choose another address", setting, addr, errorReason(err))
}

// storageError says why the truth store cannot be opened and what to do.
func storageError(cfg config.Config, err error) error {
	reason := sqlstore.Reason(err)
	if cfg.IsPostgres() {
		where := postgresLocation(cfg.Database.URL)
		if sqlstore.IsAuthFailure(err) {
			return fmt.Errorf("ENGRAM_DATABASE_URL: PostgreSQL at %s refused the login (%s); fix the user or password in the URL", where, reason)
		}
		if sqlstore.IsUnreachable(err) {
			return fmt.Errorf("ENGRAM_DATABASE_URL: cannot reach PostgreSQL at %s (%s); start it or fix the URL", where, reason)
		}
		return fmt.Errorf("ENGRAM_DATABASE_URL: cannot open PostgreSQL at %s (%s); check the URL and the server's log", where, reason)
	}
	return fmt.Errorf("ENGRAM_DATA_DIR: cannot open the SQLite file %s (%s); make the directory writable or choose another ENGRAM_DATA_DIR",
		sqlitePath(cfg), reason)
}

// errorReason is the innermost message of err: "connection refused", not the
// chain of operations above it.
func errorReason(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

// sqlitePath is the absolute path of the embedded database file.
func sqlitePath(cfg config.Config) string {
	p := filepath.Join(cfg.DataDir, sqlstore.SQLiteFile)
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// postgresLocation is host:port/database of a PostgreSQL URL, without the user
// or password.
func postgresLocation(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(unparsable URL)"
	}
	host := u.Host
	if host == "" {
		host = "localhost"
	}
	if u.Port() == "" {
		host += ":5432"
	}
	return host + u.Path
}

// dataLocation says where the truth store is, for the start-up line.
func dataLocation(cfg config.Config) (kind, where string) {
	if cfg.IsPostgres() {
		return "postgres", postgresLocation(cfg.Database.URL)
	}
	return "sqlite", sqlitePath(cfg)
}

// announce logs the facts of this process's configuration once it has started:
// where the data is and which backends do the work. The listen and docs URLs come
// from the servers themselves (serveHTTP), the auth mode from the authenticator.
func announce(lc fx.Lifecycle, cfg config.Config, log *slog.Logger) {
	lc.Append(fx.StartHook(func() {
		kind, where := dataLocation(cfg)
		log.Info("data", kind, where)
		if cfg.HasRole(config.RoleAPI) || cfg.HasRole(config.RoleIndexer) {
			log.Info("vector backend", "backend", cfg.Vector.Backend)
			log.Info("embedder", embedderFacts(cfg)...)
		}
		if cfg.HasRole(config.RoleWorker) {
			log.Info("extractor", extractorFacts(cfg)...)
		}
	}))
}

func embedderFacts(cfg config.Config) []any {
	e := cfg.Embedding
	if e.Provider == "local" {
		return []any{"provider", "local", "dimension", e.LocalDim}
	}
	return []any{"provider", e.Provider, "model", e.Model, "dimension", e.Dim, "endpoint", endpointHost(e.APIBase)}
}

func extractorFacts(cfg config.Config) []any {
	l := cfg.LLM
	if l.Provider == "rules" {
		return []any{"provider", "rules", "note", "offline rule extractor, no model calls"}
	}
	return []any{"provider", l.Provider, "model", l.Model, "endpoint", endpointHost(l.APIBase)}
}

// endpointHost is the scheme and host of an endpoint URL, never its credentials
// or query; empty means the provider's public default.
func endpointHost(raw string) string {
	if raw == "" {
		return "provider default"
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(unparsable URL)"
	}
	return u.Scheme + "://" + u.Host + u.Path
}

// announceListener logs the URL a server listens on (the bound address: port 0
// picks one) and, for the API, where its reference is.
func announceListener(log *slog.Logger, setting, bound string) {
	base := "http://" + bound
	switch setting {
	case "ENGRAM_HTTP_ADDR":
		log.Info("listening", "url", base)
		log.Info("API reference", "url", base+"/docs", "openapi", base+"/openapi.json")
	default:
		log.Info("listening", "url", base, "serves", "/metrics, /healthz", "setting", setting)
	}
}

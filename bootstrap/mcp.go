package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"go.uber.org/fx"

	"engram/adapters/mcpserver"
	"engram/bootstrap/config"
)

// stdioRoles are the background roles `engram mcp` runs: the configured ones
// without api by default, so that the embedded default indexes what the tools
// write; "none" when another engram process already runs them on the same store.
func stdioRoles(configured []string, flag string, set bool) ([]string, error) {
	if !set {
		return slices.DeleteFunc(slices.Clone(configured), func(r string) bool { return r == config.RoleAPI }), nil
	}
	if strings.TrimSpace(flag) == "none" {
		return nil, nil
	}
	var out []string
	for _, r := range strings.Split(flag, ",") {
		r = strings.ToLower(strings.TrimSpace(r))
		switch {
		case r == config.RoleAPI:
			return nil, errors.New("--roles: the api role serves HTTP; run `engram serve` for it (it serves MCP at /mcp too)")
		case !slices.Contains(config.AllRoles, r):
			return nil, fmt.Errorf("--roles: unknown role %q; roles are worker, indexer, scheduler, or none", r)
		}
		out = append(out, r)
	}
	return out, nil
}

// serveStdio runs the roles of cfg and the MCP server on in and out until the
// client closes in, or SIGINT or SIGTERM.
func serveStdio(cfg config.Config, tenant, user string, in io.Reader, out io.Writer) error {
	log := newLogger(cfg) // stderr: stdout carries only the protocol
	var srv *mcpserver.Server
	app := fx.New(
		appOptions(cfg),
		fx.Replace(log),
		fx.Populate(&srv),
		fx.StopTimeout(time.Duration(cfg.HTTP.ShutdownTimeoutSec+5)*time.Second),
	)
	if err := app.Err(); err != nil {
		return startupError(err)
	}
	startCtx, cancel := context.WithTimeout(context.Background(), app.StartTimeout())
	defer cancel()
	if err := app.Start(startCtx); err != nil {
		return startupError(err)
	}
	log.Info("engram mcp: serving MCP on stdin/stdout", "version", readBuildInfo().Version, "tenant", tenant,
		"user", user, "roles", strings.Join(cfg.Roles, ","))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := srv.ServeStdio(ctx, in, out, tenant, user)
	log.Info("engram mcp: client gone, stopping")
	stopCtx, cancelStop := context.WithTimeout(context.Background(), app.StopTimeout())
	defer cancelStop()
	if err := app.Stop(stopCtx); err != nil {
		log.Warn("engram mcp: stopped with errors", "error", startupError(err))
	}
	return served
}

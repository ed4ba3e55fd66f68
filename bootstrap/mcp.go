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

	"github.com/spf13/cobra"
	"go.uber.org/fx"

	"engram/adapters/mcpserver"
	"engram/app/auth"
	"engram/bootstrap/config"
	"engram/domain/memory"
)

// mcpCommand is `engram mcp --stdio`: the agent tools over MCP on stdin and stdout
// for a desktop client that starts engram itself (Claude Desktop, Cursor…).
func mcpCommand(g *globalFlags) *cobra.Command {
	var (
		stdio               bool
		user, tenant, roles string
	)
	cmd := &cobra.Command{
		Use:   "mcp --stdio [--user U]",
		Short: "Serve the memory tools over MCP on stdin/stdout, for a desktop client",
		Long: "Serves the agent tools (memory_save, memory_append, memory_delete, memory_list, memory_search, memory_context)\n" +
			"and the memories and profile resources over MCP on stdin and stdout; logs go to stderr. It opens the store as `engram serve` does\n" +
			"(ENGRAM_DATA_DIR, ENGRAM_DATABASE_URL) and runs the background roles in-process unless --roles says otherwise;\n" +
			"it never listens on a port (over HTTP, `engram serve` serves MCP at /mcp).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !stdio {
				return errors.New("--stdio is required: `engram mcp` serves one client on stdin/stdout; over HTTP, `engram serve` serves MCP at /mcp")
			}
			if user != "" {
				if err := memory.ValidateUserID("--user", user); err != nil {
					return err
				}
			}
			if !config.ValidTenant(tenant) {
				return errors.New("--tenant must be 1-64 characters of A-Z a-z 0-9 _ . -")
			}
			cfg, err := g.load()
			if err != nil {
				return err
			}
			if cfg.Roles, err = stdioRoles(cfg.Roles, roles, cmd.Flags().Changed("roles")); err != nil {
				return err
			}
			cfg.HTTP.MetricsAddr = "" // a desktop client's engram listens on nothing
			return serveStdio(cfg, tenant, user, cmd.InOrStdin(), cmd.OutOrStdout())
		},
	}
	cmd.Flags().BoolVar(&stdio, "stdio", false, "serve MCP on stdin/stdout (required)")
	cmd.Flags().StringVar(&user, "user", "", "pin the connection to this user: the tools take no user_id and refuse any other user "+
		"(without it, every tool call names its user with user_id)")
	cmd.Flags().StringVar(&tenant, "tenant", auth.OpenTenant, "the tenant whose memories the tools read and write")
	cmd.Flags().StringVar(&roles, "roles", "", "background roles to run in this process, or none (default: ENGRAM_ROLES without api)")
	return cmd
}

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

// Package bootstrap is the only place that knows every adapter: it loads the
// configuration, picks adapters, wires them with fx into the roles this process
// runs, and holds the command line. Business code never imports it or fx.
package bootstrap

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"engram/bootstrap/config"
)

// Run executes the command line and returns the process exit code; main exits with
// it, so there is one exit in the program.
func Run(args []string) int {
	root := newRootCommand()
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "engram:", err)
		return 1
	}
	return 0
}

type globalFlags struct {
	configFile string
}

func newRootCommand() *cobra.Command {
	var g globalFlags
	root := &cobra.Command{
		Use:           "engram",
		Short:         "Memory service for LLM agents",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&g.configFile, "config", os.Getenv("ENGRAM_CONFIG"),
		"YAML file overriding configs/engram.yaml (environment variables override both)")
	root.AddCommand(serveCommand(&g), migrateCommand(&g), keysCommand(&g), configCommand(&g), reindexCommand(&g), backupCommand(&g), restoreCommand(&g), versionCommand(), healthcheckCommand(&g), mcpCommand(&g))
	return root
}

func (g *globalFlags) load() (config.Config, error) {
	return config.Load(g.configFile, os.Environ())
}

func serveCommand(g *globalFlags) *cobra.Command {
	var roles string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the service (roles api, worker, indexer, scheduler; default all)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := g.load()
			if err != nil {
				return err
			}
			if roles != "" {
				cfg.Roles = strings.Split(roles, ",")
				for i := range cfg.Roles {
					cfg.Roles[i] = strings.TrimSpace(cfg.Roles[i])
				}
				if err := cfg.Validate(); err != nil {
					return err
				}
			}
			return serve(cfg)
		},
	}
	cmd.Flags().StringVar(&roles, "roles", "", "comma-separated roles of this process (overrides ENGRAM_ROLES)")
	return cmd
}

func migrateCommand(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: "Apply pending database migrations and exit",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := g.load()
			if err != nil {
				return err
			}
			return withDatabase(cmd.Context(), cfg, true, func(ctx context.Context, s *storage) error {
				fmt.Fprintln(cmd.OutOrStdout(), "migrations applied")
				return nil
			})
		},
	}
}

func keysCommand(g *globalFlags) *cobra.Command {
	keys := &cobra.Command{Use: "keys", Short: "Manage API keys"}
	keys.AddCommand(keysCreateCommand(g), keysListCommand(g), keysRevokeCommand(g))
	return keys
}

func configCommand(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Print the effective configuration with secrets masked",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := g.load()
			if err != nil {
				return err
			}
			out, err := cfg.Masked().YAML()
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(out)
			return err
		},
	}
}

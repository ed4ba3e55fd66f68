// Package bootstrap is the only place that knows every adapter: it loads the
// configuration, picks adapters, wires them with fx into the roles this process
// runs, and holds the command line. Business code never imports it or fx.
package bootstrap

import (
	"context"
	"errors"
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
	root.AddCommand(serveCommand(&g), migrateCommand(&g), keysCommand(&g), configCommand(&g), reindexCommand(&g), versionCommand(), healthcheckCommand(&g), mcpCommand(&g))
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
	var tenant string
	create := &cobra.Command{
		Use:   "create",
		Short: "Create an API key for a tenant; the key is printed once and stored only as a hash",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !config.ValidTenant(tenant) {
				return errors.New("--tenant must be 1-64 characters of A-Z a-z 0-9 _ . -")
			}
			return g.withStore(cmd, func(ctx context.Context, _ config.Config, s *storage) error {
				secret, err := keysManager(s).CreateKey(ctx, tenant)
				if err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), secret)
				fmt.Fprintf(cmd.ErrOrStderr(), "created an API key for tenant %s; it is shown only this once\n", tenant)
				return nil
			})
		},
	}
	create.Flags().StringVar(&tenant, "tenant", "", "tenant the key belongs to (required)")
	_ = create.MarkFlagRequired("tenant")
	keys.AddCommand(create, keysListCommand(g), keysRevokeCommand(g))
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

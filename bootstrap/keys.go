package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"engram/app/auth"
	"engram/bootstrap/config"
	"engram/ports"
)

// keysManager is the key use cases for a one-shot command.
func keysManager(s *storage) *auth.Authenticator {
	return auth.New(auth.Options{}, s.apiKeys, systemClock(), newIDs())
}

// withStore loads the configuration and runs fn with the truth store open and
// migrated: the shape of every one-shot command that reads or writes data.
func (g *globalFlags) withStore(cmd *cobra.Command, fn func(ctx context.Context, cfg config.Config, s *storage) error) error {
	cfg, err := g.load()
	if err != nil {
		return err
	}
	return withDatabase(cmd.Context(), cfg, true, func(ctx context.Context, s *storage) error { return fn(ctx, cfg, s) })
}

// keysListCommand is `engram keys list`: a header, then one line per stored key
// (id, tenant, created, last used), never a secret or its hash.
func keysListCommand(g *globalFlags) *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the stored API keys (id, tenant, created, last used); never the secrets",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return g.withStore(cmd, func(ctx context.Context, cfg config.Config, s *storage) error {
				keys, err := keysManager(s).ListKeys(ctx, all)
				if err != nil {
					return err
				}
				w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				header := "ID\tTENANT\tCREATED\tLAST USED"
				if all {
					header += "\tREVOKED"
				}
				fmt.Fprintln(w, header)
				for _, k := range keys {
					line := k.ID + "\t" + k.Tenant + "\t" + when(k.CreatedAt) + "\t" + when(k.LastUsedAt)
					if all {
						line += "\t" + when(k.RevokedAt)
					}
					fmt.Fprintln(w, line)
				}
				if err := w.Flush(); err != nil {
					return err
				}
				if configured, _ := config.ParseAPIKeys(cfg.Auth.APIKeys); len(configured) > 0 {
					fmt.Fprintf(cmd.ErrOrStderr(), "%d more keys are configured in ENGRAM_API_KEYS; they are not stored, so not listed (remove them there)\n", len(configured))
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "also list revoked keys, with when they were revoked")
	return cmd
}

func when(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format(time.RFC3339)
}

// keysRevokeCommand is `engram keys revoke ID`.
func keysRevokeCommand(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a stored API key; running servers refuse it within ENGRAM_AUTH_CACHE_TTL_SEC",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withStore(cmd, func(ctx context.Context, cfg config.Config, s *storage) error {
				key, already, err := keysManager(s).RevokeKey(ctx, args[0])
				if errors.Is(err, ports.ErrNotFound) {
					return fmt.Errorf("keys revoke: no stored API key has id %q; `engram keys list` shows the ids", args[0])
				}
				if err != nil {
					return err
				}
				if already {
					fmt.Fprintf(cmd.OutOrStdout(), "API key %s of tenant %s was already revoked at %s\n", key.ID, key.Tenant, when(key.RevokedAt))
					return nil
				}
				fmt.Fprintf(cmd.OutOrStdout(), "revoked API key %s of tenant %s; running servers refuse it within %d s\n",
					key.ID, key.Tenant, cfg.Auth.CacheTTLSec)
				return nil
			})
		},
	}
}

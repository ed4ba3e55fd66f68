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
	"engram/domain/memory"
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

// keysCreateCommand is `engram keys create --tenant T [--user U]`.
func keysCreateCommand(g *globalFlags) *cobra.Command {
	var tenant, user string
	create := &cobra.Command{
		Use:   "create",
		Short: "Create an API key for a tenant, or for one user of it; the key is printed once and stored only as a hash",
		Long: "Creates an API key for the tenant. With --user the key reaches that user only, on every route: the key to hand\n" +
			"a desktop MCP client or an agent that runs on the user's side. Without it the key reaches every user of the tenant.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !config.ValidTenant(tenant) {
				return errors.New("--tenant must be 1-64 characters of A-Z a-z 0-9 _ . -")
			}
			if user != "" {
				if err := memory.ValidateUserID("--user", user); err != nil {
					return err
				}
			}
			return g.withStore(cmd, func(ctx context.Context, _ config.Config, s *storage) error {
				secret, err := keysManager(s).CreateKey(ctx, tenant, user)
				if err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), secret)
				if user != "" {
					fmt.Fprintf(cmd.ErrOrStderr(), "created an API key for user %s of tenant %s (it reaches that user only); it is shown only this once\n", user, tenant)
					return nil
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "created an API key for tenant %s; it is shown only this once\n", tenant)
				return nil
			})
		},
	}
	create.Flags().StringVar(&tenant, "tenant", "", "tenant the key belongs to (required)")
	create.Flags().StringVar(&user, "user", "", "the one user of the tenant the key reaches (default: every user)")
	_ = create.MarkFlagRequired("tenant")
	return create
}

// keysListCommand is `engram keys list`: a header, then one line per stored key
// (id, tenant, user or * for every user, created, last used), never a secret or
// its hash.
func keysListCommand(g *globalFlags) *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the stored API keys (id, tenant, user, created, last used); never the secrets",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return g.withStore(cmd, func(ctx context.Context, cfg config.Config, s *storage) error {
				keys, err := keysManager(s).ListKeys(ctx, all)
				if err != nil {
					return err
				}
				w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				header := "ID\tTENANT\tUSER\tCREATED\tLAST USED"
				if all {
					header += "\tREVOKED"
				}
				fmt.Fprintln(w, header)
				for _, k := range keys {
					line := k.ID + "\t" + k.Tenant + "\t" + keyUser(k.User) + "\t" + when(k.CreatedAt) + "\t" + when(k.LastUsedAt)
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

// keyUser is the USER column: the one user a key reaches, * for every user.
func keyUser(user string) string {
	if user == "" {
		return "*"
	}
	return user
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
		Short: "Revoke a stored API key; every running server refuses it from its next request on",
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
				of := "tenant " + key.Tenant
				if key.User != "" {
					of = "user " + key.User + " of " + of
				}
				if already {
					fmt.Fprintf(cmd.OutOrStdout(), "API key %s of %s was already revoked at %s\n", key.ID, of, when(key.RevokedAt))
					return nil
				}
				fmt.Fprintf(cmd.OutOrStdout(), "revoked API key %s of %s; every running server refuses it from its next request on\n", key.ID, of)
				return nil
			})
		},
	}
}

package bootstrap

// The command line: every command of the engram binary, in one file.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"engram/adapters/sqlstore"
	"engram/app/auth"
	"engram/app/indexing"
	"engram/bootstrap/config"
	"engram/domain/memory"
	"engram/ports"
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
			return withDatabase(cmd.Context(), cfg, true, func(ctx context.Context, db *sqlstore.DB) error {
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

// keysManager is the key use cases for a one-shot command.
func keysManager(db *sqlstore.DB) *auth.Authenticator {
	return auth.New(auth.Options{}, sqlstore.NewAPIKeyStore(db), systemClock(), newIDs())
}

// withStore loads the configuration and runs fn with the truth store open and
// migrated: the shape of every one-shot command that reads or writes data.
func (g *globalFlags) withStore(cmd *cobra.Command, fn func(ctx context.Context, cfg config.Config, db *sqlstore.DB) error) error {
	cfg, err := g.load()
	if err != nil {
		return err
	}
	return withDatabase(cmd.Context(), cfg, true, func(ctx context.Context, db *sqlstore.DB) error { return fn(ctx, cfg, db) })
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
			return g.withStore(cmd, func(ctx context.Context, _ config.Config, db *sqlstore.DB) error {
				secret, err := keysManager(db).CreateKey(ctx, tenant, user)
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
			return g.withStore(cmd, func(ctx context.Context, cfg config.Config, db *sqlstore.DB) error {
				keys, err := keysManager(db).ListKeys(ctx, all)
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
			return g.withStore(cmd, func(ctx context.Context, cfg config.Config, db *sqlstore.DB) error {
				key, already, err := keysManager(db).RevokeKey(ctx, args[0])
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

// backupCommand is `engram backup --to FILE`: a consistent copy of the truth store
// while the server may keep running (SQLite: VACUUM INTO; PostgreSQL: pg_dump).
func backupCommand(g *globalFlags) *cobra.Command {
	var to string
	cmd := &cobra.Command{
		Use:   "backup --to FILE",
		Short: "Write a consistent copy of the database to a new file; the server may keep running",
		Long: "SQLite: the whole database file, vectors of the local index included, as one snapshot (VACUUM INTO).\n" +
			"PostgreSQL: pg_dump's custom format of the whole database (pg_dump must be on PATH).\n" +
			"Sessions kept in Redis are not in the backup: only what has been relayed to the database is.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := g.load()
			if err != nil {
				return err
			}
			if to == "" {
				return errors.New("--to FILE is required: the new file the backup is written to")
			}
			if cfg.IsPostgres() {
				err = sqlstore.DumpPostgres(cmd.Context(), cfg.Database.URL, to)
			} else {
				err = sqlstore.BackupSQLite(cmd.Context(), cfg.DataDir, to)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "backed up the database to %s\n", to)
			warnRedisSessions(cmd, cfg, "are not in the backup")
			return nil
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "the new file to write (it must not exist)")
	return cmd
}

// restoreCommand is `engram restore --from FILE`: the backup replaces the truth
// store. It refuses while a server has the database open.
func restoreCommand(g *globalFlags) *cobra.Command {
	var from string
	cmd := &cobra.Command{
		Use:   "restore --from FILE",
		Short: "Replace the database with a backup made by `engram backup`; stop the server first",
		Long: "SQLite: the backup becomes DATA_DIR/engram.db; the previous file is kept as engram.db.before-restore-<time>.\n" +
			"PostgreSQL: pg_restore drops and recreates the dump's objects in one transaction (pg_restore must be on PATH).\n" +
			"Refused while an engram process has the database open. Vectors come back with the database; the indexer\n" +
			"embeds what was not yet indexed when the backup was made.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := g.load()
			if err != nil {
				return err
			}
			if from == "" {
				return errors.New("--from FILE is required: the backup to restore")
			}
			if cfg.IsPostgres() {
				if err := sqlstore.RestorePostgres(cmd.Context(), cfg.Database.URL, from); err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "restored the database from %s\n", from)
			} else {
				stamp := systemClock().Now().UTC().Format("20060102T150405Z")
				r, err := sqlstore.RestoreSQLite(cmd.Context(), cfg.DataDir, from, stamp)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "restored %s from %s\n", r.Database, from)
				if r.Aside != "" {
					fmt.Fprintf(cmd.ErrOrStderr(), "the previous database is kept as %s\n", r.Aside)
				}
			}
			warnRedisSessions(cmd, cfg, "were not restored: sessions still in Redis stay as they are")
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the backup file to restore")
	return cmd
}

// warnRedisSessions says what a backup or restore leaves out when sessions live
// in Redis: their turns reach the database only when relayed.
func warnRedisSessions(cmd *cobra.Command, cfg config.Config, what string) {
	if cfg.Redis.Addr != "" {
		fmt.Fprintf(cmd.ErrOrStderr(), "note: session turns kept in Redis (%s) and not yet relayed to the database %s\n", cfg.Redis.Addr, what)
	}
}

// reindexCommand is `engram reindex`: every tenant's memories and messages are
// marked DIRTY, and the indexer roles rebuild their vectors in the background.
func reindexCommand(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "reindex",
		Short: "Mark every memory and message DIRTY so the indexers rebuild all vectors (after a model or backend change)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := g.load()
			if err != nil {
				return err
			}
			return withDatabase(cmd.Context(), cfg, true, func(ctx context.Context, db *sqlstore.DB) error {
				re := indexing.NewReindexer(sqlstore.NewVectorQueue(db), systemClock(), nil)
				n, err := re.ReindexAll(ctx)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "queued %d memories and %d messages for the indexer\n", n.Memories, n.Messages)
				return nil
			})
		},
	}
}

func versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of this binary",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), readBuildInfo())
			return err
		},
	}
}

// healthcheckCommand is `engram healthcheck`: it asks the server of this
// configuration for /healthz and exits 0 when it answers ok. Container images
// have no curl; their HEALTHCHECK runs this. A process without the api role
// listens only on ENGRAM_METRICS_ADDR, so that is the address it asks.
func healthcheckCommand(g *globalFlags) *cobra.Command {
	var url string
	cmd := &cobra.Command{
		Use:   "healthcheck",
		Short: "Exit 0 when this process's server answers /healthz (for container health checks)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if url == "" {
				cfg, err := g.load()
				if err != nil {
					return err
				}
				addr, err := healthAddr(cfg)
				if err != nil {
					return err
				}
				url = "http://" + localAddr(addr) + "/healthz"
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 3*time.Second)
			defer cancel()
			status, version, err := getHealth(ctx, url)
			if err != nil {
				return fmt.Errorf("healthcheck: GET %s: %w", url, err)
			}
			if status != "ok" {
				return fmt.Errorf("healthcheck: GET %s: status %q", url, status)
			}
			fmt.Fprintln(cmd.OutOrStdout(), "ok", version)
			return nil
		},
	}
	cmd.Flags().StringVar(&url, "url", "", "URL of /healthz (default: ENGRAM_HTTP_ADDR with the api role, else ENGRAM_METRICS_ADDR; on loopback when it listens on every address)")
	return cmd
}

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

package bootstrap

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"engram/adapters/sqlstore"
	"engram/bootstrap/config"
)

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

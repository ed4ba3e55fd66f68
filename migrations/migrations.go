// Package migrations holds engram's SQL schema for PostgreSQL and SQLite as files
// embedded in the binary, in the layout bun's migrator discovers: one
// `<14 digits>_<what>.up.sql` per step and dialect, statements separated by
// `--bun:split`. Number ranges keep parallel work apart (see docs/DEVELOPING.md).
//
// Every PostgreSQL step has a SQLite twin of the same name; a test holds that.
// The package imports bun's migrate package only; the adapter that runs the steps
// is adapters/sqlstore.
package migrations

import (
	"embed"
	"fmt"
	"io/fs"

	"github.com/uptrace/bun/migrate"
)

//go:embed postgres/*.sql
var postgresFiles embed.FS

//go:embed sqlite/*.sql
var sqliteFiles embed.FS

// Dialect names, as adapters/sqlstore reports them.
const (
	Postgres = "postgres"
	SQLite   = "sqlite"
)

// Files returns the migration files of a dialect, rooted at the dialect's folder.
func Files(dialect string) (fs.FS, error) {
	switch dialect {
	case Postgres:
		return fs.Sub(postgresFiles, "postgres")
	case SQLite:
		return fs.Sub(sqliteFiles, "sqlite")
	default:
		return nil, fmt.Errorf("migrations: unknown dialect %q (want %q or %q)", dialect, Postgres, SQLite)
	}
}

// For returns the migrations of a dialect, ready for migrate.NewMigrator.
func For(dialect string) (*migrate.Migrations, error) {
	files, err := Files(dialect)
	if err != nil {
		return nil, err
	}
	ms := migrate.NewMigrations()
	if err := ms.Discover(files); err != nil {
		return nil, fmt.Errorf("migrations: discover %s: %w", dialect, err)
	}
	return ms, nil
}

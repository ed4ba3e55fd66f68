package sqlstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
)

// ErrNoPostgresTool says pg_dump or pg_restore is not on PATH; the error's text
// says what to run instead.
var ErrNoPostgresTool = errors.New("not on PATH")

// DumpPostgres runs pg_dump on the database of databaseURL into the new file to,
// in pg_dump's custom format (compressed; read by pg_restore). It covers the whole
// database: every engram table, the pgvector vectors and the migrations table. The
// password travels in PGPASSWORD, never on a command line other users can read.
func DumpPostgres(ctx context.Context, databaseURL, to string) error {
	if _, err := os.Stat(to); err == nil {
		return fmt.Errorf("backup: %s already exists; name a new file", to)
	}
	dsn, password, err := splitPassword(databaseURL)
	if err != nil {
		return err
	}
	tool, err := exec.LookPath("pg_dump")
	if err != nil {
		return fmt.Errorf("backup: pg_dump %w; install the PostgreSQL client (the same major version as the server or newer) or run: pg_dump --format=custom --file %s \"$ENGRAM_DATABASE_URL\"", ErrNoPostgresTool, to)
	}
	tmp := to + ".partial"
	_ = os.Remove(tmp)
	if err := runPG(ctx, tool, password, "--format=custom", "--no-owner", "--file", tmp, "--dbname", dsn); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("backup: %w", err)
	}
	if err := os.Rename(tmp, to); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("backup: %w", err)
	}
	return nil
}

// RestorePostgres replaces the database of databaseURL with the dump from (made by
// DumpPostgres) in one transaction: objects the dump holds are dropped and
// recreated, so nothing written after the backup stays. It refuses while another
// engram process is connected to the database.
func RestorePostgres(ctx context.Context, databaseURL, from string) error {
	if fi, err := os.Stat(from); err != nil {
		return fmt.Errorf("restore: %w", err)
	} else if !fi.Mode().IsRegular() {
		return fmt.Errorf("restore: %s is not a regular file", from)
	}
	dsn, password, err := splitPassword(databaseURL)
	if err != nil {
		return err
	}
	tool, err := exec.LookPath("pg_restore")
	if err != nil {
		return fmt.Errorf("restore: pg_restore %w; install the PostgreSQL client or run: pg_restore --clean --if-exists --no-owner --single-transaction --exit-on-error --dbname \"$ENGRAM_DATABASE_URL\" %s", ErrNoPostgresTool, from)
	}
	if err := refuseOtherEngrams(ctx, databaseURL); err != nil {
		return err
	}
	if err := runPG(ctx, tool, password, "--clean", "--if-exists", "--no-owner", "--single-transaction", "--exit-on-error", "--dbname", dsn, from); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	return nil
}

// refuseOtherEngrams fails with ErrDatabaseInUse while a connection named engram
// (every engram process names its connections so) other than this one is open on
// the database.
func refuseOtherEngrams(ctx context.Context, databaseURL string) error {
	db, err := Open(ctx, Options{DatabaseURL: databaseURL, MaxOpenConns: 1})
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	defer db.Close()
	var n int
	err = db.bun.NewRaw(`SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND application_name = 'engram' AND pid <> pg_backend_pid()`).Scan(ctx, &n)
	if err != nil {
		return fmt.Errorf("restore: list the database's connections: %w", err)
	}
	if n > 0 {
		return fmt.Errorf("restore: %d engram connections are open on the database: %w", n, ErrDatabaseInUse)
	}
	return nil
}

// splitPassword takes the password out of a postgres:// URL.
func splitPassword(databaseURL string) (dsn, password string, err error) {
	u, err := url.Parse(databaseURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", "", errors.New("the database URL must look like postgres://user@host:5432/db")
	}
	if u.User != nil {
		password, _ = u.User.Password()
		u.User = url.User(u.User.Username())
	}
	return u.String(), password, nil
}

func runPG(ctx context.Context, tool, password string, args ...string) error {
	cmd := exec.CommandContext(ctx, tool, args...)
	cmd.Env = os.Environ()
	if password != "" {
		cmd.Env = append(cmd.Env, "PGPASSWORD="+password)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %v: %s", tool, err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

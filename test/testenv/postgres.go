package testenv

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
	"github.com/uptrace/bun/driver/pgdriver"
)

// NewPostgresDatabase creates an empty database for one test on the test server,
// with the pgvector extension, and drops it when the test ends. Tests that share a
// database would see each other's rows; a fresh one costs a few hundred milliseconds.
func NewPostgresDatabase(t testing.TB) string {
	t.Helper()
	base := PostgresDSN(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s is not a URL: %v", PostgresDSNVar, err)
	}
	name := "engram_t_" + strings.ToLower(ulid.Make().String())

	admin := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(base)))
	t.Cleanup(func() { _ = admin.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create test database: %v", err)
	}

	u.Path = "/" + name
	dsn := u.String()
	db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
	if _, err := db.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS vector"); err != nil {
		_ = db.Close()
		t.Fatalf("create extension vector in %s: %v", name, err)
	}
	_ = db.Close()

	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name)); err != nil {
			t.Logf("drop test database %s: %v", name, err)
		}
	})
	return dsn
}

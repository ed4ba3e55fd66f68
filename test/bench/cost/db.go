package main

import (
	"context"
	"database/sql"
	"net/url"
	"sync"

	"github.com/uptrace/bun/driver/pgdriver"
)

var (
	scratchMu sync.Mutex
	scratch   []func() // drops the scratch databases at the end of the run
)

// scratchDatabase creates a database on the server of dsn and returns its URL; it
// is dropped by dropScratch.
func scratchDatabase(dsn, name string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", err
	}
	admin := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
	if _, err := admin.ExecContext(context.Background(), "CREATE DATABASE "+name); err != nil {
		_ = admin.Close()
		return "", err
	}
	scratchMu.Lock()
	scratch = append(scratch, func() {
		_, _ = admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		_ = admin.Close()
	})
	scratchMu.Unlock()
	u.Path = "/" + name
	return u.String(), nil
}

func dropScratch() {
	scratchMu.Lock()
	defer scratchMu.Unlock()
	for _, drop := range scratch {
		drop()
	}
	scratch = nil
}

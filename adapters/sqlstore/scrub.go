package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"engram/ports"
)

// Scrubber makes what erasures deleted unreadable from the database's files
// (ports.Scrubber). On SQLite every connection runs with secure_delete, so a
// deleted row's bytes are zeroed in the page that held it; the write-ahead log
// still holds the pages as they were until a checkpoint copies the zeroed pages
// back and the log is truncated, which Scrub does. On PostgreSQL a deleted row
// stays in its page as a dead tuple until VACUUM prunes it; Scrub vacuums every
// table of the schema. Scrubs run one at a time.
type Scrubber struct {
	db *DB
	mu sync.Mutex
}

var _ ports.Scrubber = (*Scrubber)(nil)

// NewScrubber serves ports.Scrubber from db.
func NewScrubber(db *DB) *Scrubber { return &Scrubber{db: db} }

// checkpointTries bounds how often a checkpoint that found a reader on an older
// snapshot (busy) is tried again, 50 ms apart.
const checkpointTries = 100

// Scrub checkpoints and truncates SQLite's log, or vacuums PostgreSQL's tables.
func (s *Scrubber) Scrub(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db.dialect == DialectPostgres {
		return s.vacuum(ctx)
	}
	return s.checkpoint(ctx)
}

func (s *Scrubber) checkpoint(ctx context.Context) error {
	if err := s.db.lockWriter(ctx); err != nil {
		return wrapErr("scrub: wait for the writer", err)
	}
	defer s.db.unlockWriter()
	for try := 0; ; try++ {
		var busy, logged, moved int
		err := s.db.bun.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logged, &moved)
		if err != nil {
			return wrapErr("scrub: checkpoint", err)
		}
		if busy == 0 {
			return nil
		}
		if try == checkpointTries {
			return fmt.Errorf("sqlstore: scrub: a reader kept the write-ahead log from being truncated: %w", ports.ErrUnavailable)
		}
		select {
		case <-ctx.Done():
			return wrapErr("scrub: checkpoint", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (s *Scrubber) vacuum(ctx context.Context) error {
	var tables []string
	err := s.db.bun.NewRaw(`SELECT tablename FROM pg_tables WHERE schemaname = current_schema()
		AND tablename NOT LIKE 'bun_migration%' ORDER BY tablename`).Scan(ctx, &tables)
	if err != nil {
		return wrapErr("scrub: list tables", err)
	}
	if len(tables) == 0 {
		return nil
	}
	quoted := make([]string, len(tables))
	for i, t := range tables {
		quoted[i] = quoteIdent(t)
	}
	// One statement for every table (VACUUM cannot run in a transaction block).
	if _, err := s.db.bun.ExecContext(ctx, "VACUUM "+strings.Join(quoted, ", ")); err != nil {
		return wrapErr("scrub: vacuum", err)
	}
	return nil
}

func quoteIdent(name string) string {
	out := []byte{'"'}
	for i := 0; i < len(name); i++ {
		if name[i] == '"' {
			out = append(out, '"')
		}
		out = append(out, name[i])
	}
	return string(append(out, '"'))
}

package sqlstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"engram/ports"
)

// LexicalCursors keeps the lexical indexer's named positions in lexical_cursors,
// each with the lease of the process running its pass.
type LexicalCursors struct {
	db *DB
}

var _ ports.LexicalCursors = (*LexicalCursors)(nil)

// NewLexicalCursors serves ports.LexicalCursors from db.
func NewLexicalCursors(db *DB) *LexicalCursors { return &LexicalCursors{db: db} }

// Position reads a named position.
func (c *LexicalCursors) Position(ctx context.Context, name string) (string, error) {
	var pos []string
	err := c.db.bun.NewSelect().Table("lexical_cursors").Column("position").
		Where("name = ?", name).Scan(ctx, &pos)
	if err != nil {
		return "", wrapErr("lexical cursor", err)
	}
	if len(pos) == 0 {
		return "", nil
	}
	return pos[0], nil
}

// Set stores a named position.
func (c *LexicalCursors) Set(ctx context.Context, name, position string) error {
	return c.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewRaw(`INSERT INTO lexical_cursors (name, position, updated_at) VALUES (?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position, updated_at = EXCLUDED.updated_at`,
			name, position, dbTime(time.Now())).Exec(ctx)
		return wrapErr("set lexical cursor", err)
	})
}

// Claim takes or renews the cursor's lease in one upsert whose update
// only applies when the lease is free, lapsed or already the holder's.
func (c *LexicalCursors) Claim(ctx context.Context, name, holder string, now time.Time, lease time.Duration) (string, bool, error) {
	var pos []string
	err := c.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		pos = pos[:0]
		return tx.NewRaw(`INSERT INTO lexical_cursors (name, position, updated_at, holder, lease_until) VALUES (?, '', ?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, lease_until = EXCLUDED.lease_until
			WHERE lexical_cursors.holder IS NULL OR lexical_cursors.holder = EXCLUDED.holder
				OR lexical_cursors.lease_until IS NULL OR lexical_cursors.lease_until <= ?
			RETURNING position`, name, dbTime(now), holder, dbTime(now.Add(lease)), dbTime(now)).Scan(ctx, &pos)
	})
	if err != nil && classify(err) != classNotFound {
		return "", false, wrapErr("claim lexical cursor", err)
	}
	if len(pos) == 0 {
		return "", false, nil
	}
	return pos[0], true, nil
}

// Release ends holder's lease, keeping the position.
func (c *LexicalCursors) Release(ctx context.Context, name, holder string) error {
	return c.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewRaw(`UPDATE lexical_cursors SET holder = NULL, lease_until = NULL WHERE name = ? AND holder = ?`,
			name, holder).Exec(ctx)
		return wrapErr("release lexical cursor", err)
	})
}

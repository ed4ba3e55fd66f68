package ports

import "context"

// Scrubber makes what the last erasures deleted unreadable from the database's
// own files, once an erasure is done: SQLite checkpoints its write-ahead log into
// the main file (whose freed pages secure_delete has zeroed) and truncates it;
// PostgreSQL vacuums the tables that hold user data, so their dead tuples go
// (see README "What erasure leaves behind" for what neither can reach).
type Scrubber interface {
	Scrub(ctx context.Context) error
}

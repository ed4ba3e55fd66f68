// Package sqlstore keeps engram's truth in SQL through bun: one implementation for
// the embedded SQLite file (modernc.org/sqlite, pure Go) and for PostgreSQL
// (pgdriver). DB owns the connection, the schema (package migrations) and the write
// path; each port lives in its own file with its row structs and converters
// (toRow/fromRow), and asserts the port it implements.
//
// Errors leave the package as ports errors (wrapErr); no driver type escapes.
// Writes go through DB.WriteTx, which serialises SQLite writers in process and
// retries PostgreSQL transactions that lost a race.
//
// The package imports domain, ports and migrations; never app or bootstrap.
package sqlstore

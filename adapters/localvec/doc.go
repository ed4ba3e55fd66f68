// Package localvec is the embedded default's vector index: it keeps one embedding
// model's vectors in process memory and answers ports.VectorIndex searches with
// exact cosine scores. Partitions of 20,000 vectors and more are scanned by int8
// copies of their vectors first (an AVX2 kernel) and only the best candidates are
// scored exactly, with recall@10 against the full scan measured at 1.0 at 100,000
// vectors (PrefilterOptions); HNSW graphs (github.com/coder/hnsw) remain an option
// for very large partitions.
//
// Vectors are partitioned by tenant, user and kind, and every other filter is applied
// to a record before it is scored, so a search never sees another user's vectors and
// never fetches extra hits to drop them afterwards.
//
// # Persistence
//
// The index keeps nothing on disk; the SQL store is the place vectors survive in. Two
// hooks connect them:
//
//   - Index.Load(records) bulk-loads what the store kept, once at start, and
//     Index.Snapshot() returns everything the index holds (for export or migration).
//     vector.Encode/vector.Decode (domain/vector) give the byte form of a vector for a BLOB/bytea column.
//   - Durable wraps an Index with a Store (implemented by the SQL adapter): every
//     Upsert and Delete is written to the store first and to memory second, and
//     OpenDurable loads the store's vectors into a fresh index. The indexer keeps
//     calling a plain ports.VectorIndex and never knows the difference.
//
// A Store holds the vectors of one embedding model; a change of model is a reindex.
//
// This package must not import other adapters, app/ or bootstrap/.
package localvec

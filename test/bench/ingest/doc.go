// Package ingest holds the benchmarks of conversation ingestion and extraction:
// the messages:batch ingest rate over HTTP on the embedded SQLite
// store, the pipeline's own time per message with the model taken out, and what the
// pipeline does with the MemoryBank traffic (prefilter skips, model calls per
// processed message, memories written per 100 messages). The figures and the
// commands that produce them are in docs/BENCHMARKS.md.
package ingest

// Package indexing keeps the retrieval indexes, vector and lexical, in step with
// the truth store:
//
//   - the vector index: it embeds memories and conversation messages
//     whose vectors are out of date, writes them to the vector index and records
//     the outcome, and requeues everything for a reindex (Indexer, Runner,
//     Reindexer);
//   - the lexical index: memories on the write path and by a repair pass,
//     messages by a pass over the stored messages (LexicalIndexer,
//     MemoryDocument).
//
// Memories are embedded alone from memory.IndexText. A message is embedded alone
// (conversation.Message.IndexText, the text its lexical document is made of too),
// its raw embedding is kept in the truth store, and the vector the index holds is
// that embedding mixed with its neighbours' (ranking.ContextVectors, the LoCoMo
// recipe of docs/BENCHMARKS.md); when later messages of a conversation arrive,
// their neighbours' vectors are rebuilt from the stored embeddings, without
// embedding anything again.
//
// One file per use case; it depends on domain and ports only, and never on fx.
package indexing

import (
	"time"

	"engram/domain/memory"
	"engram/domain/ranking"
	"engram/domain/retry"
	"engram/ports"
)

// Defaults of Options.
const (
	DefaultBatchSize   = 32
	DefaultLease       = 5 * time.Minute
	DefaultCallTimeout = time.Minute
	maxErrorLen        = 1000
)

// DefaultRetry is the backoff of failed syncs (5 s doubling, at most 10 min).
// Syncs are retried for as long as they fail: the backlog metrics show what
// waits.
var DefaultRetry = retry.Policy{BaseDelay: 5 * time.Second, MaxDelay: 10 * time.Minute}

// Options shape the indexer.
type Options struct {
	// Worker names this indexer's claims; unique per process.
	Worker string
	// BatchSize is how many items one claim takes (MEMORY_INDEX_WORKER_BATCH_SIZE).
	BatchSize int
	// Lease is how long a claim lasts; a dead indexer's items return after it.
	Lease time.Duration
	// CallTimeout bounds one embedder or vector index call.
	CallTimeout time.Duration
	// Retry is the backoff of failed syncs; zero fields take DefaultRetry's.
	Retry retry.Policy
	// NeighbourWindow and NeighbourWeight mix a message's neighbours into its
	// vector; zero values take ranking.DefaultRecipe's (±2 at 0.5). A negative
	// window turns the mixing off.
	NeighbourWindow int
	NeighbourWeight float64
}

func (o Options) withDefaults() Options {
	if o.Worker == "" {
		o.Worker = "indexer"
	}
	if o.BatchSize <= 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	o.Retry = o.Retry.Or(DefaultRetry)
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.NeighbourWindow == 0 {
		o.NeighbourWindow = ranking.DefaultRecipe.NeighbourWindow
	}
	if o.NeighbourWindow < 0 {
		o.NeighbourWindow = 0
	}
	if o.NeighbourWeight == 0 {
		o.NeighbourWeight = ranking.DefaultRecipe.NeighbourWeight
	}
	return o
}

// Observer receives one report per batch (metrics).
type Observer interface {
	Batch(r Report)
}

// Report is what one batch did.
type Report struct {
	Kind      memory.Kind
	Claimed   int
	Embedded  int // texts sent to the embedder
	Unchanged int // synced without embedding: same text and model as the vector held
	Removed   int // vectors deleted (inactive, expired or noise memories)
	Upserted  int // vectors written, neighbours whose context changed included
	Synced    int // outcomes stored as SYNCED
	Failed    int // outcomes stored as FAILED
	// Failures counts failed items by stage: embed, upsert, delete.
	Failures map[string]int
	// Lags are, for each synced item, how long it waited since it became dirty.
	Lags     []time.Duration
	Stale    int // outcomes not stored: edited or requeued meanwhile
	Duration time.Duration
}

// tally counts one item's stored outcome: synced (and how long it waited since
// dirtySince, when known) or failed.
func (r *Report) tally(status memory.VectorStatus, dirtySince, now time.Time) {
	switch status {
	case memory.VectorSynced:
		r.Synced++
		if !dirtySince.IsZero() {
			r.Lags = append(r.Lags, now.Sub(dirtySince))
		}
	case memory.VectorFailed:
		r.Failed++
	}
}

func (r *Report) fail(stage string, n int) {
	if n == 0 {
		return
	}
	if r.Failures == nil {
		r.Failures = map[string]int{}
	}
	r.Failures[stage] += n
}

// Indexer runs the sync use cases.
type Indexer struct {
	store    ports.VectorQueue
	embedder ports.Embedder
	index    ports.VectorIndex
	clock    ports.Clock
	opts     Options
	observer Observer
}

// New builds the indexer; observer may be nil.
func New(store ports.VectorQueue, embedder ports.Embedder, index ports.VectorIndex, clock ports.Clock, opts Options, observer Observer) *Indexer {
	return &Indexer{store: store, embedder: embedder, index: index, clock: clock, opts: opts.withDefaults(), observer: observer}
}

func (ix *Indexer) observe(r Report) {
	if ix.observer != nil && r.Claimed > 0 {
		ix.observer.Batch(r)
	}
}

package retrieval

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"engram/domain/memory"
	"engram/ports"
)

// Defaults of IndexerOptions.
const (
	DefaultMessageBatch    = 1000
	DefaultMessageInterval = time.Second
	DefaultMessageLag      = 5 * time.Second
	DefaultRepairInterval  = time.Minute
	DefaultRepairBatch     = 500
	// DefaultCursorLease: the pass renews it every MessageInterval (1 s), and
	// releases it on shutdown; 10 s is how long the pass stops after a kill -9.
	DefaultCursorLease = 10 * time.Second
	// repairMargin re-reads memories changed a little before the last pass started:
	// clocks of several processes differ, and a write may commit after its time.
	repairMargin = time.Minute
)

// MessagesCursor names the message pass's position in LexicalIndex.
const MessagesCursor = "lexical-messages"

// IndexerOptions shape the lexical indexer.
type IndexerOptions struct {
	// MessageBatch is how many messages one write indexes.
	MessageBatch int
	// MessageInterval is how often the message pass looks for new messages.
	MessageInterval time.Duration
	// MessageLag: the pass only moves past messages whose arrival id (a ULID, which
	// carries its creation time) is at least this old, so that a message whose
	// transaction commits late is not skipped. Negative: no lag (message ids that
	// are not ULIDs, tests driving the pass by hand).
	MessageLag time.Duration
	// RepairInterval is how often memories changed since the last repair are
	// compared with their documents.
	RepairInterval time.Duration
	// Holder names this process for the message pass's lease (unique per
	// process); CursorLease is how long a lease lasts without renewal.
	Holder      string
	CursorLease time.Duration
	Logger      *slog.Logger
}

func (o IndexerOptions) withDefaults() IndexerOptions {
	if o.MessageBatch <= 0 {
		o.MessageBatch = DefaultMessageBatch
	}
	if o.MessageInterval <= 0 {
		o.MessageInterval = DefaultMessageInterval
	}
	if o.MessageLag == 0 {
		o.MessageLag = DefaultMessageLag
	}
	if o.RepairInterval <= 0 {
		o.RepairInterval = DefaultRepairInterval
	}
	if o.Holder == "" {
		o.Holder = "lexical-indexer"
	}
	if o.CursorLease <= 0 {
		o.CursorLease = DefaultCursorLease
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// Indexer keeps the lexical index in step with the truth:
//
//   - memories on the write path, so a memory saved through the API is found by
//     the next search: the SQL store writes the document in the change's own
//     transaction (MemoryDocument, adapters/sqlstore MemoryStore.IndexLexically);
//     other stores are wrapped in IndexingMemoryStore, which writes it right after;
//   - memories again by a repair pass over recent changes, which fixes a document
//     that a write outside those paths (or a lost process) left behind;
//   - messages off the ingest path, by a pass that walks conversation_messages in
//     arrival order: posting a batch costs no analysis, and the pass writes
//     thousands of documents per transaction.
type Indexer struct {
	analyzer ports.TextAnalyzer
	index    ports.LexicalIndex
	memories MemoryReader
	messages MessageReader // nil: no message pass
	clock    ports.Clock
	opts     IndexerOptions

	mu         sync.Mutex
	repairFrom time.Time // the next repair reads changes from here; zero: everything
	repairID   string
}

// NewIndexer builds an indexer; messages may be nil.
func NewIndexer(analyzer ports.TextAnalyzer, index ports.LexicalIndex, memories MemoryReader, messages MessageReader,
	clock ports.Clock, opts IndexerOptions,
) *Indexer {
	return &Indexer{analyzer: analyzer, index: index, memories: memories, messages: messages, clock: clock, opts: opts.withDefaults()}
}

// IndexMemory brings the memory's document in line with it: stored when the memory
// is indexable, removed otherwise.
func (ix *Indexer) IndexMemory(ctx context.Context, m memory.Memory) error {
	if indexable(m) {
		return ix.index.PutLexicalDocs(ctx, []ports.LexicalDoc{memoryDoc(ix.analyzer, m)})
	}
	return ix.index.DeleteLexicalDocs(ctx, m.Scope(), []ports.LexicalRef{{Kind: ports.LexicalMemory, ID: m.ID()}})
}

// RepairMemories compares the memories changed since the last repair (all of them
// the first time) with their documents and fixes those that differ. It returns
// how many documents it wrote.
func (ix *Indexer) RepairMemories(ctx context.Context) (int, error) {
	started := ix.clock.Now()
	ix.mu.Lock()
	afterAt, afterID := ix.repairFrom, ix.repairID
	ix.mu.Unlock()
	fixed := 0
	for {
		page, err := ix.memories.MemoriesChangedSince(ctx, afterAt, afterID, DefaultRepairBatch)
		if err != nil {
			return fixed, fmt.Errorf("read changed memories: %w", err)
		}
		byUser := map[memory.Scope][]memory.Memory{}
		for _, m := range page {
			byUser[m.Scope()] = append(byUser[m.Scope()], m)
		}
		for scope, ms := range byUser {
			n, err := ix.repairUser(ctx, scope, ms)
			fixed += n
			if err != nil {
				return fixed, err
			}
		}
		if len(page) < DefaultRepairBatch {
			break
		}
		last := page[len(page)-1]
		afterAt, afterID = last.UpdatedAt(), last.ID()
	}
	ix.mu.Lock()
	ix.repairFrom, ix.repairID = started.Add(-repairMargin), ""
	ix.mu.Unlock()
	return fixed, nil
}

func (ix *Indexer) repairUser(ctx context.Context, scope memory.Scope, ms []memory.Memory) (int, error) {
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID()
	}
	versions, err := ix.index.LexicalVersions(ctx, scope, ids)
	if err != nil {
		return 0, fmt.Errorf("read indexed versions: %w", err)
	}
	var puts []ports.LexicalDoc
	var dels []ports.LexicalRef
	for _, m := range ms {
		v, has := versions[m.ID()]
		switch {
		case indexable(m) && (!has || v != m.Version()):
			puts = append(puts, memoryDoc(ix.analyzer, m))
		case !indexable(m) && has:
			dels = append(dels, ports.LexicalRef{Kind: ports.LexicalMemory, ID: m.ID()})
		}
	}
	if err := ix.index.PutLexicalDocs(ctx, puts); err != nil {
		return 0, fmt.Errorf("repair documents: %w", err)
	}
	if err := ix.index.DeleteLexicalDocs(ctx, scope, dels); err != nil {
		return len(puts), fmt.Errorf("repair deletions: %w", err)
	}
	return len(puts) + len(dels), nil
}

// IndexMessages indexes messages stored since the last pass, batch by batch, until
// it has caught up (or ctx ends). It returns how many it indexed. Of several
// indexer processes only the one holding the cursor's lease runs the pass; the
// others return at once (the work is idempotent, but need not be done twice).
func (ix *Indexer) IndexMessages(ctx context.Context) (int, error) {
	if ix.messages == nil {
		return 0, nil
	}
	cursor, ok, err := ix.index.ClaimLexicalCursor(ctx, MessagesCursor, ix.opts.Holder, ix.clock.Now(), ix.opts.CursorLease)
	if err != nil {
		return 0, fmt.Errorf("claim the message cursor: %w", err)
	}
	if !ok {
		return 0, nil
	}
	upTo := maxSeq
	if ix.opts.MessageLag > 0 {
		upTo = ulidPrefix(ix.clock.Now().Add(-ix.opts.MessageLag)) + strings.Repeat("Z", 16)
	}
	done := 0
	for ctx.Err() == nil {
		msgs, err := ix.messages.MessagesAfter(ctx, cursor, upTo, ix.opts.MessageBatch)
		if err != nil {
			return done, fmt.Errorf("read messages: %w", err)
		}
		if len(msgs) == 0 {
			return done, nil
		}
		docs := make([]ports.LexicalDoc, len(msgs))
		for i, m := range msgs {
			docs[i] = messageDoc(ix.analyzer, m)
		}
		if err := ix.index.PutLexicalDocs(ctx, docs); err != nil {
			return done, fmt.Errorf("index messages: %w", err)
		}
		cursor = msgs[len(msgs)-1].Seq
		if err := ix.index.SetLexicalCursor(ctx, MessagesCursor, cursor); err != nil {
			return done, fmt.Errorf("store the message cursor: %w", err)
		}
		done += len(msgs)
		if len(msgs) < ix.opts.MessageBatch {
			return done, nil
		}
		// A long catch-up renews the lease; a process that lost it stops.
		if _, ok, err := ix.index.ClaimLexicalCursor(ctx, MessagesCursor, ix.opts.Holder, ix.clock.Now(), ix.opts.CursorLease); err != nil || !ok {
			return done, err
		}
	}
	return done, ctx.Err()
}

// maxSeq is above every arrival id: no lag.
const maxSeq = "\U0010FFFF"

// ulidPrefix is the 10-character time part of a ULID for t (Crockford base32 of
// the Unix milliseconds), so that ids made before t sort below prefix+"ZZ…".
func ulidPrefix(t time.Time) string {
	const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	ms := uint64(max(t.UnixMilli(), 0))
	var b [10]byte
	for i := 9; i >= 0; i-- {
		b[i] = alphabet[ms&31]
		ms >>= 5
	}
	return string(b[:])
}

// Run runs the message pass every MessageInterval and the repair pass every
// RepairInterval (the first at once) until ctx ends. Failures are logged and
// retried at the next tick.
func (ix *Indexer) Run(ctx context.Context) {
	messages := time.NewTicker(ix.opts.MessageInterval)
	defer messages.Stop()
	repair := time.NewTicker(ix.opts.RepairInterval)
	defer repair.Stop()
	ix.runRepair(ctx)
	for {
		select {
		case <-ctx.Done():
			ix.releaseCursor(ctx)
			return
		case <-messages.C:
			if _, err := ix.IndexMessages(ctx); err != nil && !errors.Is(err, context.Canceled) {
				ix.opts.Logger.Warn("lexical index: message pass failed; retrying", "error", err)
			}
		case <-repair.C:
			ix.runRepair(ctx)
		}
	}
}

// releaseCursor gives the message pass's lease back on shutdown, so the next
// process (a restart) runs the pass at once instead of waiting for the lease.
func (ix *Indexer) releaseCursor(ctx context.Context) {
	if ix.messages == nil {
		return
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := ix.index.ReleaseLexicalCursor(rctx, MessagesCursor, ix.opts.Holder); err != nil {
		ix.opts.Logger.Warn("lexical index: releasing the message pass's lease failed; it lapses by itself", "lease", ix.opts.CursorLease, "error", err)
	}
}

func (ix *Indexer) runRepair(ctx context.Context) {
	n, err := ix.RepairMemories(ctx)
	if err != nil && !errors.Is(err, context.Canceled) {
		ix.opts.Logger.Warn("lexical index: repair pass failed; retrying", "error", err)
	}
	if n > 0 {
		ix.opts.Logger.Info("lexical index: repaired memory documents", "count", n)
	}
}

// IndexingMemoryStore is a MemoryStore whose committed changes reach the lexical
// index before Update returns (read-your-writes for search), for stores that
// cannot write the document in the change's transaction (the in-memory one). A
// failed index write does not fail the change, which is already committed: it is
// logged, and the repair pass fixes the document.
type IndexingMemoryStore struct {
	ports.MemoryStore
	indexer *Indexer
	log     *slog.Logger
}

// NewIndexingMemoryStore decorates store.
func NewIndexingMemoryStore(store ports.MemoryStore, indexer *Indexer, log *slog.Logger) *IndexingMemoryStore {
	if log == nil {
		log = slog.Default()
	}
	return &IndexingMemoryStore{MemoryStore: store, indexer: indexer, log: log}
}

// Update stores the change, then indexes the memory.
func (s *IndexingMemoryStore) Update(ctx context.Context, scope memory.Scope, key memory.Key,
	fn func(current *memory.Memory) (memory.Change, error),
) (memory.Memory, error) {
	m, err := s.MemoryStore.Update(ctx, scope, key, fn)
	if err != nil {
		return m, err
	}
	// The caller's deadline may be nearly spent by the change; the index write is
	// short and must not be lost to it.
	ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := s.indexer.IndexMemory(ictx, m); err != nil {
		s.log.WarnContext(ctx, "lexical index: memory not indexed; the repair pass will", "memory_id", m.ID(), "error", err)
	}
	return m, nil
}

package indexing

import (
	"log/slog"
	"sync"
	"time"

	"engram/ports"
)

// Defaults of LexicalOptions.
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

// LexicalMessagesCursor names the lexical message pass's position in LexicalIndex.
const LexicalMessagesCursor = "lexical-messages"

// LexicalOptions shape the lexical indexer.
type LexicalOptions struct {
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
	// Observer is told of every batch a pass read (the operations log); nil:
	// nobody.
	Observer LexicalObserver
}

// Lexical passes, as LexicalReport names them.
const (
	LexicalPassMessages = "messages" // new messages indexed in arrival order
	LexicalPassRepair   = "repair"   // changed memories compared with their documents
)

// LexicalReport is what one batch of a lexical pass did.
type LexicalReport struct {
	Pass     string // LexicalPassMessages or LexicalPassRepair
	Read     int    // messages read, or changed memories compared
	Indexed  int    // documents written
	Removed  int    // documents deleted (repair: memories no longer indexable)
	Duration time.Duration
}

// LexicalObserver receives one report per batch that read something and
// finished; a pass that fails is logged by Run with its error.
type LexicalObserver interface {
	LexicalBatch(r LexicalReport)
}

func (o LexicalOptions) withDefaults() LexicalOptions {
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

// LexicalIndexer keeps the lexical index in step with the truth:
//
//   - memories on the write path, so a memory saved through the API is found by
//     the next search: the SQL store writes the document in the change's own
//     transaction (MemoryDocument, adapters/sqlstore MemoryStore.IndexLexically);
//   - memories again by a repair pass over recent changes, which fixes a document
//     that a write outside those paths (or a lost process) left behind;
//   - messages off the ingest path, by a pass that walks conversation_messages in
//     arrival order: posting a batch costs no analysis, and the pass writes
//     thousands of documents per transaction.
type LexicalIndexer struct {
	analyzer ports.TextAnalyzer
	docs     ports.LexicalDocs
	cursors  ports.LexicalCursors // the message pass's position; unused without messages
	memories ChangedMemories
	messages MessageFeed // nil: no message pass
	clock    ports.Clock
	opts     LexicalOptions

	mu         sync.Mutex
	repairFrom time.Time // the next repair reads changes from here; zero: everything
	repairID   string
}

// NewLexicalIndexer builds the lexical indexer; messages may be nil, and cursors
// with it.
func NewLexicalIndexer(analyzer ports.TextAnalyzer, docs ports.LexicalDocs, cursors ports.LexicalCursors, memories ChangedMemories,
	messages MessageFeed, clock ports.Clock, opts LexicalOptions,
) *LexicalIndexer {
	return &LexicalIndexer{analyzer: analyzer, docs: docs, cursors: cursors, memories: memories, messages: messages, clock: clock, opts: opts.withDefaults()}
}

func (ix *LexicalIndexer) observe(r LexicalReport) {
	if ix.opts.Observer != nil {
		ix.opts.Observer.LexicalBatch(r)
	}
}

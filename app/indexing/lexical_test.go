package indexing_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"engram/adapters/sqlstore"
	"engram/adapters/textanalysis"
	"engram/adapters/ulids"
	"engram/app/indexing"
	"engram/app/messages"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/test/fakeclock"
	"engram/test/teststore"
)

// lexicalEnv is the lexical indexer over the SQLite stores.
type lexicalEnv struct {
	t        *testing.T
	clock    *fakeclock.Clock
	analyzer *textanalysis.Analyzer
	index    *sqlstore.LexicalDocs
	cursors  *sqlstore.LexicalCursors
	store    *sqlstore.MemoryStore
	msgs     *sqlstore.MessageStore
	indexer  *indexing.LexicalIndexer
	messages *messages.Service
}

func newLexicalEnv(t *testing.T) *lexicalEnv {
	t.Helper()
	e := &lexicalEnv{t: t, clock: fakeclock.New(start), analyzer: textanalysis.New(textanalysis.Options{})}
	stores := teststore.New(t)
	e.index, e.cursors, e.store, e.msgs = stores.Lexical, stores.Cursors, stores.Memories, stores.Messages
	e.indexer = indexing.NewLexicalIndexer(e.analyzer, e.index, e.cursors, e.store, e.msgs, e.clock, indexing.LexicalOptions{MessageLag: -1})
	e.messages = messages.New(e.msgs, e.clock, ulids.New(), messages.Options{Debounce: time.Second})
	return e
}

// docs is the ids of the user's documents of one kind, as the index holds them.
func (e *lexicalEnv) docs(kind memory.Kind) []string {
	e.t.Helper()
	changes, err := e.index.ChangesSince(context.Background(), scope, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	var ids []string
	for _, d := range changes.Docs {
		if d.Kind == kind {
			ids = append(ids, d.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

func (e *lexicalEnv) post(conv string, in ...conversation.Input) []string {
	e.t.Helper()
	for i := range in {
		in[i].ConversationID, in[i].Role = conv, "user"
	}
	posted, err := e.messages.PostBatch(context.Background(), messages.PostBatch{Scope: scope, Messages: in})
	if err != nil {
		e.t.Fatal(err)
	}
	seqs := make([]string, len(posted))
	for i, p := range posted {
		seqs[i] = p.Message.Seq
	}
	return seqs
}

func TestLexicalIndexer_repairFixesWhatTheWritePathMissed(t *testing.T) {
	t.Parallel()
	e := newLexicalEnv(t)
	// Written behind the lexical index's back, as if the process died after commit.
	m, err := e.store.Update(context.Background(), scope, memory.MustParseKey("lost"), func(*memory.Memory) (memory.Change, error) {
		d, _ := memory.ParseDraft(memory.DraftInput{Type: "fact", Content: "Keeps bees on the roof"}, memory.Source{Channel: memory.ChannelTool})
		m, err := memory.New("01LOST", scope, memory.MustParseKey("lost"), d, memory.Policy{}, start)
		return memory.Change{Memory: m, Event: memory.NewEvent("01EV", memory.OpAdd, nil, m)}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.docs(memory.KindMemory); len(got) != 0 {
		t.Fatalf("before repair: %v", got)
	}
	if n, err := e.indexer.RepairMemories(context.Background()); err != nil || n != 1 {
		t.Fatalf("repair: %d, %v; want 1 document", n, err)
	}
	if got := e.docs(memory.KindMemory); !slices.Equal(got, []string{m.ID()}) {
		t.Fatalf("after repair: %v, want the lost memory's document", got)
	}
	if n, err := e.indexer.RepairMemories(context.Background()); err != nil || n != 0 {
		t.Errorf("a second repair: %d, %v; want nothing to fix", n, err)
	}
}

func TestLexicalIndexer_onlyTheLeaseHolderRunsTheMessagePass(t *testing.T) {
	t.Parallel()
	e := newLexicalEnv(t)
	first := e.post("s1", conversation.Input{MessageID: "a", Content: "first", CreatedAt: start})
	if n, err := e.indexer.IndexMessages(context.Background()); err != nil || n != 1 { // e.indexer holds the lease
		t.Fatalf("first pass: %d, %v", n, err)
	}
	other := indexing.NewLexicalIndexer(e.analyzer, e.index, e.cursors, e.store, e.msgs, e.clock, indexing.LexicalOptions{MessageLag: -1, Holder: "other"})
	second := e.post("s1", conversation.Input{MessageID: "b", Content: "second", CreatedAt: start})
	if n, err := other.IndexMessages(context.Background()); err != nil || n != 0 {
		t.Fatalf("while the lease runs: %d, %v; want nothing done", n, err)
	}
	e.clock.Advance(indexing.DefaultCursorLease)
	if n, err := other.IndexMessages(context.Background()); err != nil || n != 1 {
		t.Fatalf("after the lease lapsed: %d, %v; want the one new message", n, err)
	}
	want := append(first, second...)
	slices.Sort(want)
	if got := e.docs(memory.KindMessage); !slices.Equal(got, want) {
		t.Errorf("documents %v, want %v", got, want)
	}
}

// A message's document is its IndexText analysed, with its speaker's first term,
// the one text the vector side embeds too.
func TestLexicalIndexer_messageDocumentIsItsIndexText(t *testing.T) {
	t.Parallel()
	e := newLexicalEnv(t)
	said := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	e.post("s1", conversation.Input{MessageID: "a", Name: "Melanie Smith", Content: "Yes, twice last year!", CreatedAt: said})
	if _, err := e.indexer.IndexMessages(context.Background()); err != nil {
		t.Fatal(err)
	}
	changes, err := e.index.ChangesSince(context.Background(), scope, 0)
	if err != nil || len(changes.Docs) != 1 {
		t.Fatalf("documents: %+v, %v", changes.Docs, err)
	}
	d := changes.Docs[0]
	want := e.analyzer.Terms("Melanie Smith: Yes, twice last year! 8 May 2023")
	if !slices.Equal(d.Terms, want) || d.Speaker != "melani" || d.ConversationID != "s1" || !d.At.Equal(said) {
		t.Errorf("document %+v, want terms %v, speaker melani", d, want)
	}
}

// lexicalReports collects the indexer's batch reports.
type lexicalReports struct{ got []indexing.LexicalReport }

func (r *lexicalReports) LexicalBatch(rep indexing.LexicalReport) { r.got = append(r.got, rep) }

// Each batch of either pass is reported with what it read and wrote, for the
// operations log (adapters/oplog) to write from outside.
func TestLexicalIndexer_reportsEveryBatchOfBothPasses(t *testing.T) {
	t.Parallel()
	e := newLexicalEnv(t)
	reports := &lexicalReports{}
	ix := indexing.NewLexicalIndexer(e.analyzer, e.index, e.cursors, e.store, e.msgs, e.clock,
		indexing.LexicalOptions{MessageLag: -1, MessageBatch: 2, Observer: reports})
	e.post("s1", conversation.Input{MessageID: "a", Content: "first", CreatedAt: start},
		conversation.Input{MessageID: "b", Content: "second", CreatedAt: start}, conversation.Input{MessageID: "c", Content: "third", CreatedAt: start})
	if n, err := ix.IndexMessages(context.Background()); err != nil || n != 3 {
		t.Fatalf("message pass: %d, %v", n, err)
	}
	if _, err := e.store.Update(context.Background(), scope, memory.MustParseKey("lost"), func(*memory.Memory) (memory.Change, error) {
		d, _ := memory.ParseDraft(memory.DraftInput{Type: "fact", Content: "Keeps bees on the roof"}, memory.Source{Channel: memory.ChannelTool})
		m, err := memory.New("01LOST", scope, memory.MustParseKey("lost"), d, memory.Policy{}, start)
		return memory.Change{Memory: m, Event: memory.NewEvent("01EV", memory.OpAdd, nil, m)}, err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.RepairMemories(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.IndexMessages(context.Background()); err != nil { // nothing new: no batch
		t.Fatal(err)
	}
	want := []indexing.LexicalReport{
		{Pass: indexing.LexicalPassMessages, Read: 2, Indexed: 2},
		{Pass: indexing.LexicalPassMessages, Read: 1, Indexed: 1},
		{Pass: indexing.LexicalPassRepair, Read: 1, Indexed: 1},
	}
	if len(reports.got) != len(want) {
		t.Fatalf("reports %+v, want %+v", reports.got, want)
	}
	for i, r := range reports.got {
		if r.Duration <= 0 {
			t.Errorf("report %d took %v", i, r.Duration)
		}
		r.Duration = 0
		if r != want[i] {
			t.Errorf("report %d = %+v, want %+v", i, r, want[i])
		}
	}
}

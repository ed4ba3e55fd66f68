package sqlstore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"engram/adapters/lexical"
	"engram/adapters/textanalysis"
	"engram/adapters/ulids"
	"engram/app/indexing"
	"engram/app/memories"
	"engram/app/messages"
	"engram/app/retrieval"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
)

// The retrieval use case must answer exactly the same on SQLite and PostgreSQL,
// whichever path wrote the lexical documents: same items, same scores.

type retrievalStores struct {
	memories interface {
		ports.MemoryStore
		retrieval.MemoryReader
		retrieval.AccessWriter
		indexing.ChangedMemories
	}
	messages interface {
		ports.MessageLog
		retrieval.MessageReader
		indexing.MessageFeed
	}
	lexical interface {
		ports.LexicalDocs
		ports.LexicalFeed
	}
	cursors ports.LexicalCursors
}

type fixedClock struct{ now time.Time }

func (c fixedClock) Now() time.Time { return c.now }

// searchScript writes the same data through the use cases and returns every
// search's answer as text.
// With inTx the store writes each memory's document in the memory's own
// transaction (IndexLexically, as engram serve does); otherwise the memories are
// committed without their documents and the indexer's repair pass writes them.
func searchScript(t *testing.T, st retrievalStores, inTx bool) []string {
	t.Helper()
	ctx := context.Background()
	clock := fixedClock{now: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
	an := textanalysis.New(textanalysis.Options{})
	ids := ulids.New()
	ix := indexing.NewLexicalIndexer(an, st.lexical, st.cursors, st.memories, st.messages, clock, indexing.LexicalOptions{MessageLag: -1})
	if inTx {
		st.memories.(*MemoryStore).IndexLexically(func(m memory.Memory) (ports.LexicalDoc, bool) { return indexing.MemoryDocument(an, m) })
	}
	mems := memories.New(st.memories, clock, ids, memory.Policy{DefaultTTLDays: 180})
	msgs := messages.New(st.messages, clock, ids, messages.Options{})
	svc := retrieval.New(retrieval.Deps{Analyzer: an, Lexical: lexical.New(st.lexical, lexical.Options{}), Memories: st.memories, Messages: st.messages, Clock: clock}, retrieval.Options{})
	alice := memory.Scope{Tenant: "t1", User: "alice"}
	for _, m := range []struct{ key, typ, content string }{
		{"diet-preference", "preference", "Vegetarian, no fish"},
		{"coffee", "preference", "Drinks oat milk flat whites every morning"},
		{"hobby", "preference", "喜欢绘画和户外活动"},
		{"food", "preference", "不吃辣，喜欢清淡的粤菜"},
		{"gone", "fact", "Drinks milk tea"},
		{"project", "project", "Building a memory service in Go"},
	} {
		if _, err := mems.Save(ctx, memories.Save{Scope: alice, Key: m.key, Draft: memory.DraftInput{Type: m.typ, Content: m.content}}); err != nil {
			t.Fatalf("save %s: %v", m.key, err)
		}
	}
	if err := mems.Delete(ctx, memories.Delete{Scope: alice, Key: "gone"}); err != nil {
		t.Fatal(err)
	}
	if _, err := mems.Save(ctx, memories.Save{Scope: memory.Scope{Tenant: "t1", User: "bob"}, Key: "coffee",
		Draft: memory.DraftInput{Type: "preference", Content: "Drinks milk coffee"}}); err != nil {
		t.Fatal(err)
	}
	day := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	var in []conversation.Input
	for i, line := range []string{"Have you ever been to Paris?", "Yes, twice last year!", "What did you see?", "The Louvre, and we had 咖啡 by the river."} {
		speaker := []string{"Caroline", "Melanie"}[i%2]
		in = append(in, conversation.Input{ConversationID: "s1", MessageID: fmt.Sprintf("m%d", i), Role: "user", Name: speaker,
			Content: line, CreatedAt: day.Add(time.Duration(i) * time.Minute)})
	}
	if _, err := msgs.PostBatch(ctx, messages.PostBatch{Scope: alice, Messages: in}); err != nil {
		t.Fatal(err)
	}
	if n, err := ix.IndexMessages(ctx); err != nil || n != len(in) {
		t.Fatalf("index messages: %d, %v", n, err)
	}
	if !inTx {
		// The six live memories (five of alice, one of bob) have no document yet:
		// the repair pass writes them.
		if n, err := ix.RepairMemories(ctx); err != nil || n != 6 {
			t.Fatalf("repair of memories written without their documents: %d, %v; want 6", n, err)
		}
	}
	var out []string
	for _, q := range []retrieval.Search{
		{Query: "what milk does she drink", Mode: "lexical"},
		{Query: "diet preference", Mode: "lexical", Within: "all"},
		{Query: "他平时有什么户外运动", Mode: "lexical"},
		{Query: "吃辣吗", Mode: "auto"},
		{Query: "has Melanie been to Paris", Mode: "lexical", Within: "messages"},
		{Query: "咖啡", Mode: "lexical", Within: "all"},
		{Query: "", Mode: "full_inject"},
		{Query: "coffee", Mode: "full_inject", Types: []string{"preference"}},
	} {
		q.Scope = alice
		res, err := svc.Search(ctx, q)
		if err != nil {
			t.Fatalf("search %+v: %v", q, err)
		}
		line := fmt.Sprintf("%s/%s %q →", res.ModeUsed, res.FallbackReason, q.Query)
		for _, it := range res.Items {
			name := ""
			if it.Memory != nil {
				name = it.Memory.Key().String()
			} else {
				name = it.Message.ID
			}
			line += fmt.Sprintf(" %s:%.12f", name, it.Score)
		}
		out = append(out, line)
	}
	// last_accessed_at is written without a new version.
	m, err := st.memories.Get(ctx, alice, memory.MustParseKey("coffee"))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.memories.TouchMemories(ctx, "t1", []string{m.ID()}, clock.now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	after, err := st.memories.Get(ctx, alice, memory.MustParseKey("coffee"))
	if err != nil {
		t.Fatal(err)
	}
	if !after.LastAccessedAt().Equal(clock.now.Add(time.Hour)) || after.Version() != m.Version() {
		t.Errorf("touch: last access %v version %d, want %v and version %d", after.LastAccessedAt(), after.Version(), clock.now.Add(time.Hour), m.Version())
	}
	if n, err := ix.RepairMemories(ctx); err != nil || n != 0 {
		t.Errorf("repair of an index in step: %d, %v; want nothing to fix", n, err)
	}
	return out
}

func sqlStores(db *DB) retrievalStores {
	return retrievalStores{memories: NewMemoryStore(db), messages: NewMessageStore(db), lexical: NewLexicalDocs(db), cursors: NewLexicalCursors(db)}
}

// compareWithSQLite runs the script on open's database, both ways, and wants the
// answers of SQLite with the documents written in the memories' transactions.
func compareWithSQLite(t *testing.T, open func(t testing.TB) *DB) {
	want := searchScript(t, sqlStores(openSQLiteForTest(t)), true)
	for _, inTx := range []bool{false, true} {
		got := searchScript(t, sqlStores(open(t)), inTx)
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("in transaction %v, search %d:\n got %s\nwant %s", inTx, i, got[i], want[i])
			}
		}
		for _, l := range got {
			t.Log(l)
		}
	}
}

func TestRetrieval_SQLite(t *testing.T) {
	t.Parallel()
	compareWithSQLite(t, openSQLiteForTest)
}

func TestRetrieval_Postgres(t *testing.T) {
	t.Parallel()
	compareWithSQLite(t, openPostgresForTest)
}

// Two processes over one database (here two services with their own in-memory
// lexical indexes): a memory one of them saves or deletes is seen by the other's
// next search, with its index already warm.
func crossProcess(t *testing.T, db *DB) {
	ctx := context.Background()
	clock := fixedClock{now: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
	an := textanalysis.New(textanalysis.Options{})
	alice := memory.Scope{Tenant: "t1", User: "alice"}
	process := func() (*memories.Service, *retrieval.Service) {
		store := NewMemoryStore(db)
		store.IndexLexically(func(m memory.Memory) (ports.LexicalDoc, bool) { return indexing.MemoryDocument(an, m) })
		svc := retrieval.New(retrieval.Deps{Analyzer: an, Lexical: lexical.New(NewLexicalDocs(db), lexical.Options{}), Memories: store, Clock: clock}, retrieval.Options{})
		return memories.New(store, clock, ulids.New(), memory.Policy{}), svc
	}
	writerMems, _ := process()
	_, reader := process()
	find := func(query string) int {
		t.Helper()
		res, err := reader.Search(ctx, retrieval.Search{Scope: alice, Query: query, Mode: "lexical"})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.Items)
	}
	if n := find("oat milk"); n != 0 { // warms the reader's index for alice
		t.Fatalf("before any write: %d items", n)
	}
	if _, err := writerMems.Save(ctx, memories.Save{Scope: alice, Key: "coffee", Draft: memory.DraftInput{Type: "preference", Content: "Drinks oat milk"}}); err != nil {
		t.Fatal(err)
	}
	if n := find("oat milk"); n != 1 {
		t.Fatalf("after the other process saved: %d items, want 1", n)
	}
	if err := writerMems.Delete(ctx, memories.Delete{Scope: alice, Key: "coffee"}); err != nil {
		t.Fatal(err)
	}
	if n := find("oat milk"); n != 0 {
		t.Fatalf("after the other process deleted: %d items, want 0", n)
	}
}

func TestRetrieval_crossProcess_SQLite(t *testing.T) {
	t.Parallel()
	crossProcess(t, openSQLiteForTest(t))
}

func TestRetrieval_crossProcess_Postgres(t *testing.T) {
	t.Parallel()
	crossProcess(t, openPostgresForTest(t))
}

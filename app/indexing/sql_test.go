package indexing_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"engram/adapters/localvec"
	"engram/adapters/pgvector"
	"engram/adapters/sqlstore"
	"engram/adapters/ulids"
	"engram/app/indexing"
	"engram/app/memories"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/domain/ranking"
	"engram/ports"
	"engram/test/fakeclock"
	"engram/test/teststore"
)

// sqlWorld is the indexer over the SQL stores, as the indexer role runs it.
type sqlWorld struct {
	db       *sqlstore.DB
	sync     *sqlstore.VectorQueue
	mems     *sqlstore.MemoryStore
	msgs     *sqlstore.MessageStore
	svc      *memories.Service
	embedder *countingEmbedder
	clock    *fakeclock.Clock
}

func openSQLWorld(t *testing.T, db *sqlstore.DB) *sqlWorld {
	t.Helper()
	w := &sqlWorld{db: db, sync: sqlstore.NewVectorQueue(db), mems: sqlstore.NewMemoryStore(db),
		msgs: sqlstore.NewMessageStore(db), embedder: newEmbedder(t, "test-model-v1"), clock: fakeclock.New(start)}
	w.svc = memories.New(w.mems, w.clock, ulids.New(), memory.Policy{})
	return w
}

// fill writes memories of several users and conversations of several messages.
func (w *sqlWorld) fill(t *testing.T, users, memoriesPerUser, conversations, messagesPerConversation int) {
	t.Helper()
	ctx := context.Background()
	ids := ulids.New()
	for u := range users {
		sc := memory.Scope{Tenant: "t1", User: fmt.Sprintf("user-%d", u)}
		for k := range memoriesPerUser {
			if _, err := w.svc.Save(ctx, memories.Save{Scope: sc, Key: fmt.Sprintf("topic-%d", k),
				Draft: memory.DraftInput{Type: "fact", Content: fmt.Sprintf("user %d likes subject %d very much", u, k)}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for c := range conversations {
		sc := memory.Scope{Tenant: "t1", User: fmt.Sprintf("user-%d", c%users)}
		var msgs []conversation.Message
		for i := range messagesPerConversation {
			role := []string{"user", "assistant"}[i%2]
			at := start.Add(time.Duration(c*messagesPerConversation+i) * time.Second)
			m, err := conversation.New(sc, conversation.Input{ConversationID: fmt.Sprintf("conv-%d", c), Role: role,
				Content: fmt.Sprintf("message %d of conversation %d about hobby %d", i, c, (c+i)%7), CreatedAt: at}, ids.New(), at, 0)
			if err != nil {
				t.Fatal(err)
			}
			msgs = append(msgs, m)
		}
		if _, err := w.msgs.Ingest(ctx, sc, msgs); err != nil {
			t.Fatal(err)
		}
	}
}

// Several indexers on one PostgreSQL database share the work through claims: every
// memory and message is embedded exactly once, and message vectors end up mixed
// with all their neighbours although neighbours may be claimed by other indexers
// in turn.
func TestIndexers_Postgres_shareTheWorkWithoutDoingItTwice(t *testing.T) {
	t.Parallel()
	w := openSQLWorld(t, teststore.OpenPostgres(t))
	const users, perUser, convs, perConv = 6, 20, 12, 9
	w.fill(t, users, perUser, convs, perConv)
	index, err := pgvector.Open(context.Background(), w.db.Bun(), pgvector.Options{Model: w.embedder.Model(), Dimension: testDim})
	if err != nil {
		t.Fatal(err)
	}

	var wg sync.WaitGroup
	claimed := make([]countingObserver, 4)
	for i := range 4 {
		ix := indexing.New(w.sync, w.embedder, index, w.clock, indexing.Options{Worker: fmt.Sprintf("indexer-%d", i), BatchSize: 7}, &claimed[i])
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each indexer drains until nothing is due for it; together they cover
			// everything (what one skipped was held by another).
			for range 3 {
				if _, err := ix.Drain(context.Background(), nil); err != nil {
					t.Errorf("indexer %d: %v", i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	last := indexing.New(w.sync, w.embedder, index, w.clock, indexing.Options{Worker: "sweeper"}, nil)
	tot, err := last.Drain(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if tot.Memories.Claimed+tot.Messages.Claimed != 0 {
		t.Errorf("left for the sweeper: %+v", tot)
	}
	busy := 0
	for i := range claimed {
		if claimed[i].n > 0 {
			busy++
		}
	}
	if busy < 2 {
		t.Fatalf("only %d of 4 indexers did any work: the test shows nothing about sharing", busy)
	}

	texts := w.embedder.Texts()
	seen := map[string]int{}
	for _, s := range texts {
		seen[s]++
	}
	for s, n := range seen {
		if n > 1 {
			t.Errorf("%q embedded %d times", s, n)
		}
	}
	if want := users*perUser + convs*perConv; len(texts) != want {
		t.Fatalf("%d texts embedded, want each of the %d exactly once", len(texts), want)
	}
	if b, err := w.sync.Backlog(context.Background()); err != nil || b.DirtyMemories+b.FailedMemories+b.DirtyMessages+b.FailedMessages != 0 {
		t.Fatalf("backlog %+v, %v; want empty", b, err)
	}
	checkMessageVectors(t, w, index, users, convs)
}

// countingObserver counts the items an indexer claimed.
type countingObserver struct {
	mu sync.Mutex
	n  int
}

func (c *countingObserver) Batch(r indexing.Report) {
	c.mu.Lock()
	c.n += r.Claimed
	c.mu.Unlock()
}

// checkMessageVectors checks that each message's vector in the index is the
// context vector of its conversation's stored embeddings: a search for exactly
// that vector finds the message with a cosine of 1.
func checkMessageVectors(t *testing.T, w *sqlWorld, index ports.VectorIndex, users, convs int) {
	t.Helper()
	ctx := context.Background()
	for c := range convs {
		sc := memory.Scope{Tenant: "t1", User: fmt.Sprintf("user-%d", c%users)}
		claim, err := w.sync.ClaimMessages(ctx, ports.VectorClaim{Worker: "probe", Now: start, Lease: time.Minute, Limit: 1})
		if err != nil || len(claim) != 0 {
			t.Fatalf("something still due: %d, %v", len(claim), err)
		}
		convMsgs, err := w.msgs.ConversationBefore(ctx, conversation.Message{Scope: sc, ConversationID: fmt.Sprintf("conv-%d", c),
			CreatedAt: start.Add(1000 * time.Hour), Seq: "~"}, 1000)
		if err != nil || len(convMsgs) == 0 {
			t.Fatalf("conversation %d: %d messages, %v", c, len(convMsgs), err)
		}
		window, err := w.sync.MessageWindow(ctx, convMsgs[0], convMsgs[len(convMsgs)-1], 0)
		if err != nil {
			t.Fatal(err)
		}
		own := make([][]float32, len(window))
		for i, mv := range window {
			if mv.Status != memory.VectorSynced || mv.Embedding == nil {
				t.Fatalf("conversation %d message %d: %s, embedding %v", c, i, mv.Status, mv.Embedding != nil)
			}
			own[i] = mv.Embedding
		}
		want := ranking.ContextVectors(own, 2, 0.5)
		for i, mv := range window {
			hits, err := index.Search(ctx, ports.VectorQuery{Tenant: sc.Tenant, User: sc.User, Kinds: []memory.Kind{memory.KindMessage}, Vector: want[i], Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != 1 || hits[0].ID != mv.Message.Seq || hits[0].Score < 0.9999 {
				t.Fatalf("conversation %d message %d: nearest to its context vector is %+v, want itself at cosine 1", c, i, hits)
			}
		}
	}
}

// The embedded default: SQLite, localvec persisted in SQL, one indexer.
func TestIndexer_SQLite_localVectorsEndToEnd(t *testing.T) {
	t.Parallel()
	w := openSQLWorld(t, teststore.Open(t))
	const users, perUser, convs, perConv = 3, 10, 4, 7
	w.fill(t, users, perUser, convs, perConv)
	store := sqlstore.NewLocalVectorStore(w.db, w.embedder.Model(), testDim)
	index, err := localvec.OpenDurable(context.Background(), store, localvec.Options{Dimension: testDim})
	if err != nil {
		t.Fatal(err)
	}
	ix := indexing.New(w.sync, w.embedder, index, w.clock, indexing.Options{Worker: "solo", BatchSize: 5}, nil)
	tot, err := ix.Drain(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if tot.Memories.Synced != users*perUser || tot.Messages.Synced != convs*perConv {
		t.Fatalf("drain %+v", tot)
	}
	checkMessageVectors(t, w, index, users, convs)
	if n, _ := store.CountVectors(context.Background()); n != int64(users*perUser+convs*perConv) {
		t.Fatalf("%d vectors persisted, want %d", n, users*perUser+convs*perConv)
	}

	// An edit to one memory: only it is embedded again.
	before := len(w.embedder.Texts())
	if _, err := w.svc.Save(context.Background(), memories.Save{Scope: memory.Scope{Tenant: "t1", User: "user-0"}, Key: "topic-0",
		Draft: memory.DraftInput{Type: "fact", Content: "user 0 changed their mind"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Drain(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got := w.embedder.Texts()[before:]; !slices.Equal(got, []string{"[fact] topic-0: user 0 changed their mind"}) {
		t.Fatalf("embedded after one edit: %q", got)
	}
}

package indexing_test

import (
	"context"
	"errors"
	"testing"

	"engram/app/indexing"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/domain/ranking"
)

// ownEmbedding is what a message is embedded as on its own.
func (w *world) ownEmbedding(m conversation.Message) []float32 {
	w.t.Helper()
	v, err := w.embedder.Embedder.Embed(context.Background(), []string{m.IndexText()})
	if err != nil {
		w.t.Fatal(err)
	}
	return v[0]
}

// wantContext checks that each message's stored vector is ContextVectors over the
// whole sequence (±2 at 0.5).
func (w *world) wantContext(seq []conversation.Message) {
	w.t.Helper()
	own := make([][]float32, len(seq))
	for i, m := range seq {
		own[i] = w.ownEmbedding(m)
	}
	want := ranking.ContextVectors(own, 2, 0.5)
	for i, m := range seq {
		got := w.vectorOf(m.Seq)
		if got == nil {
			w.t.Fatalf("message %d (%s) has no vector", i, m.Content)
		}
		if cos := ranking.Cosine(got, want[i]); cos < 0.9999 {
			w.t.Fatalf("message %d (%s): vector has cosine %.5f with its context vector, want 1", i, m.Content, cos)
		}
	}
}

func TestSyncMessages_vectorsMixNeighboursAndFollowNewArrivals(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	first := w.post("c1",
		[2]string{"user", "I adopted a dog last week"},
		[2]string{"assistant", "Congratulations! What is its name?"},
	)
	tot := w.drain()
	if tot.Messages.Synced != 2 || tot.Messages.Embedded != 2 {
		t.Fatalf("report %+v", tot.Messages)
	}
	w.wantContext(first)

	// Two more messages: only they are embedded, and the first two get vectors
	// that now mix them in, from their stored embeddings.
	before := len(w.embedder.Texts())
	later := w.post("c1",
		[2]string{"user", "Her name is Biscuit"},
		[2]string{"assistant", "Biscuit is a lovely name"},
	)
	tot = w.drain()
	if got := len(w.embedder.Texts()) - before; got != 2 {
		t.Fatalf("%d texts embedded, want only the 2 new messages", got)
	}
	if tot.Messages.Upserted != 4 {
		t.Fatalf("%d vectors written, want the 2 new ones and their 2 neighbours", tot.Messages.Upserted)
	}
	w.wantContext(append(first, later...))

	// A neighbour's answer finds the question: "Yes, Biscuit" finds its context.
	if ids := w.search("dog name Biscuit", memory.KindMessage); len(ids) != 4 {
		t.Fatalf("search = %v", ids)
	}
}

func TestSyncMessages_textHasSpeakerAndDate(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	m, err := conversation.New(scope, conversation.Input{ConversationID: "c1", Role: "user", Name: "Melanie", Content: "I painted a sunrise"}, w.ids.New(), start, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.msgs.Ingest(context.Background(), scope, []conversation.Message{m}); err != nil {
		t.Fatal(err)
	}
	w.drain()
	if texts := w.embedder.Texts(); len(texts) != 1 || texts[0] != "Melanie: I painted a sunrise 30 November 2026" {
		t.Fatalf("embedded %q", texts)
	}
}

func TestSyncMessages_systemMessagesGetNoVectorAndAreNoNeighbours(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	msgs := w.post("c1",
		[2]string{"user", "What is the weather"},
		[2]string{"system", "tool output: sunny"},
		[2]string{"assistant", "It is sunny today"},
	)
	w.drain()
	if w.vectorOf(msgs[1].Seq) != nil {
		t.Fatal("a system message got a vector")
	}
	w.wantContext([]conversation.Message{msgs[0], msgs[2]})
	bl, _ := w.sync.Backlog(context.Background())
	if bl.DirtyMessages != 0 || bl.FailedMessages != 0 {
		t.Fatalf("backlog %+v after the drain", bl)
	}
}

func TestSyncMessages_conversationsAreIndependent(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	a := w.post("c1", [2]string{"user", "I like chess"}, [2]string{"assistant", "Chess is great"})
	b := w.post("c2", [2]string{"user", "I like tennis"})
	w.drain()
	w.wantContext(a)
	w.wantContext(b)
}

func TestSyncMessages_embedderFailureKeepsThemForLater(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	msgs := w.post("c1", [2]string{"user", "I like chess"}, [2]string{"assistant", "Chess is great"})
	w.embedder.setFail(errors.New("embeddings endpoint: timeout"))
	tot := w.drain()
	if tot.Messages.Failed != 2 || tot.Messages.Failures["embed"] != 2 {
		t.Fatalf("report %+v, want both FAILED by the embedder", tot.Messages)
	}
	bl, _ := w.sync.Backlog(context.Background())
	if bl.FailedMessages != 2 {
		t.Fatalf("backlog %+v", bl)
	}
	w.embedder.setFail(nil)
	w.clock.Advance(indexing.DefaultRetry.Delay(1))
	w.drain()
	w.wantContext(msgs)
}

func TestSyncMessages_upsertFailureKeepsTheEmbeddings(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	msgs := w.post("c1", [2]string{"user", "I like chess"}, [2]string{"assistant", "Chess is great"})
	w.index.setDown(true)
	w.drain()
	embedded := len(w.embedder.Texts())
	w.index.setDown(false)
	w.clock.Advance(indexing.DefaultRetry.Delay(1))
	w.drain()
	if len(w.embedder.Texts()) != embedded {
		t.Fatal("the retry embedded again although the embeddings were stored")
	}
	w.wantContext(msgs)
}

func TestSyncMessages_reindexWithTheSameModelReusesEmbeddings(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	msgs := w.post("c1", [2]string{"user", "I like chess"}, [2]string{"assistant", "Chess is great"})
	w.drain()
	w.useIndex() // e.g. the vector backend changed
	embedded := len(w.embedder.Texts())
	if _, err := indexing.NewReindexer(w.sync, w.clock, nil).ReindexAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	tot := w.drain()
	if len(w.embedder.Texts()) != embedded || tot.Messages.Unchanged != 2 {
		t.Fatalf("report %+v: same model, the stored embeddings must be reused", tot.Messages)
	}
	w.wantContext(msgs)
	if tot.Messages.Synced != 2 {
		t.Fatalf("%d messages synced by the reindex, want 2", tot.Messages.Synced)
	}
}

func TestSyncMessages_unreadableTextGetsNoVectorAndMixesNothingIn(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	msgs := w.post("c1", [2]string{"user", "I like chess"}, [2]string{"assistant", "BLANK"}, [2]string{"user", "and tennis"})
	w.drain()
	if w.vectorOf(msgs[1].Seq) != nil {
		t.Fatal("a message with an all-zero embedding got a vector")
	}
	bl, _ := w.sync.Backlog(context.Background())
	if bl.DirtyMessages+bl.FailedMessages != 0 {
		t.Fatalf("backlog %+v", bl)
	}
	// Its neighbours are mixed as if it were silent (a zero vector adds nothing).
	own := [][]float32{w.ownEmbedding(msgs[0]), make([]float32, testDim), w.ownEmbedding(msgs[2])}
	want := ranking.ContextVectors(own, 2, 0.5)
	for _, i := range []int{0, 2} {
		if c := ranking.Cosine(w.vectorOf(msgs[i].Seq), want[i]); c < 0.9999 {
			t.Fatalf("message %d: cosine %.5f with its context vector", i, c)
		}
	}
}

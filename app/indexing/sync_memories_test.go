package indexing_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"engram/app/indexing"
	"engram/app/memories"
	"engram/domain/memory"
)

func TestSyncMemories_embedsIndexTextUpsertsAndMarksSynced(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	tea := w.save("drink", "likes oolong tea")
	w.save("city", "lives in Wuhan")

	tot := w.drain()
	if tot.Memories.Synced != 2 || tot.Memories.Embedded != 2 || tot.Memories.Upserted != 2 {
		t.Fatalf("report %+v, want 2 embedded, upserted and synced", tot.Memories)
	}
	got := w.get("drink")
	v := got.Vector()
	if v.Status != memory.VectorSynced || v.Model != "test-model-v1" || v.Version != int(got.Version()) ||
		v.TextHash != memory.TextHash(tea.IndexText()) || !v.SyncedAt.Equal(start) || v.Error != "" {
		t.Fatalf("vector state %+v, want SYNCED with model, version, hash and time", v)
	}
	if want := "[fact] drink: likes oolong tea"; !slices.Contains(w.embedder.Texts(), want) {
		t.Fatalf("embedded %q, want the index text %q", w.embedder.Texts(), want)
	}
	if ids := w.search("oolong tea"); len(ids) != 2 || ids[0] != tea.ID() {
		t.Fatalf("search = %v, want %s first", ids, tea.ID())
	}
	// One batch call for the batch.
	if w.embedder.calls != 1 {
		t.Fatalf("%d embedder calls, want 1", w.embedder.calls)
	}
}

func TestSyncMemories_unchangedTextIsNotReembedded(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.save("drink", "likes oolong tea")
	w.drain()
	before := len(w.embedder.Texts())

	// Same text, other importance: a new version, DIRTY, but nothing to embed.
	five := 5
	if _, err := w.svc.Save(context.Background(), memories.Save{Scope: scope, Key: "drink",
		Draft: memory.DraftInput{Type: "fact", Content: "likes oolong tea", Importance: &five}}); err != nil {
		t.Fatal(err)
	}
	if s := w.get("drink").Vector().Status; s != memory.VectorDirty {
		t.Fatalf("status after the edit %s, want DIRTY", s)
	}
	tot := w.drain()
	if n := len(w.embedder.Texts()) - before; n != 0 {
		t.Fatalf("%d texts embedded again for unchanged text", n)
	}
	got := w.get("drink")
	if tot.Memories.Unchanged != 1 || got.Vector().Status != memory.VectorSynced || got.Vector().Version != int(got.Version()) {
		t.Fatalf("report %+v, state %+v; want it SYNCED at version %d without embedding", tot.Memories, got.Vector(), got.Version())
	}

	// New text is embedded.
	w.save("drink", "likes jasmine tea")
	w.drain()
	if texts := w.embedder.Texts(); len(texts) != before+1 || texts[len(texts)-1] != "[fact] drink: likes jasmine tea" {
		t.Fatalf("embedded %q, want the new text once", texts[before:])
	}
}

func TestSyncMemories_modelChangeReembedsUnchangedText(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.save("drink", "likes oolong tea")
	w.drain()
	w.embedder.model = "test-model-v2"
	five := 5
	_, _ = w.svc.Save(context.Background(), memories.Save{Scope: scope, Key: "drink",
		Draft: memory.DraftInput{Type: "fact", Content: "likes oolong tea", Importance: &five}})
	tot := w.drain()
	if tot.Memories.Embedded != 1 || w.get("drink").Vector().Model != "test-model-v2" {
		t.Fatalf("report %+v, state %+v: a vector of another model must be rebuilt", tot.Memories, w.get("drink").Vector())
	}
}

func TestSyncMemories_editDuringIndexingStaysDirty(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.save("drink", "likes oolong tea")
	edited := false
	w.embedder.setDuring(func() {
		if !edited {
			edited = true
			w.save("drink", "likes green tea")
		}
	})
	rep, err := w.ix.SyncMemories(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := w.get("drink")
	if got.Vector().Status != memory.VectorDirty || rep.Stale != 1 {
		t.Fatalf("after an edit during indexing: state %+v, report %+v; want DIRTY and one stale outcome", got.Vector(), rep)
	}
	// The edit is picked up at once: its claim was released.
	w.drain()
	got = w.get("drink")
	if got.Vector().Status != memory.VectorSynced || got.Vector().TextHash != memory.TextHash(got.IndexText()) {
		t.Fatalf("state %+v, want SYNCED with the edited text's hash", got.Vector())
	}
	if ids := w.search("green tea"); len(ids) != 1 {
		t.Fatalf("search = %v", ids)
	}
}

func TestSyncMemories_deletedExpiredAndNoiseMemoriesLoseTheirVectors(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	keep := w.save("drink", "likes oolong tea")
	gone := w.save("pet", "has a cat named Tom")
	ttl := 1
	short, err := w.svc.Save(context.Background(), memories.Save{Scope: scope, Key: "plan",
		Draft: memory.DraftInput{Type: "goal", Content: "visit Kyoto", TTLDays: &ttl}})
	if err != nil {
		t.Fatal(err)
	}
	w.drain()
	if ids := w.search("cat"); len(ids) != 3 {
		t.Fatalf("before: %v", ids)
	}

	if err := w.svc.Delete(context.Background(), memories.Delete{Scope: scope, Key: "pet"}); err != nil {
		t.Fatal(err)
	}
	tot := w.drain()
	if tot.Memories.Removed != 1 || w.vectorOf(gone.ID()) != nil {
		t.Fatalf("report %+v: the deleted memory's vector must be removed", tot.Memories)
	}
	if v := w.get("pet").Vector(); v.Status != memory.VectorSynced || v.TextHash != "" {
		t.Fatalf("deleted memory's state %+v, want SYNCED with no text hash", v)
	}

	// Expired: marked DIRTY by whatever notices (here a requeue), then removed.
	w.clock.Advance(48 * time.Hour)
	if _, err := w.sync.Requeue(context.Background(), scope.Tenant, w.clock.Now()); err != nil {
		t.Fatal(err)
	}
	w.drain()
	if w.vectorOf(short.Memory.ID()) != nil || w.vectorOf(keep.ID()) == nil {
		t.Fatalf("index holds %v; want only %s", w.search("x"), keep.ID())
	}

	// Brought back to life with the same text: embedded again, since its vector went.
	if _, err := w.svc.Save(context.Background(), memories.Save{Scope: scope, Key: "pet",
		Draft: memory.DraftInput{Type: "fact", Content: "has a cat named Tom"}}); err != nil {
		t.Fatal(err)
	}
	w.drain()
	if w.vectorOf(gone.ID()) == nil {
		t.Fatal("a revived memory with unchanged text did not get its vector back")
	}
}

func TestSyncMemories_noiseKeysAreNeverIndexed(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	// Noise keys are refused by the tool channel; one may still be in the store
	// from older data.
	key, err := memory.ParseKey("weather-date_2026-11-30")
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.mems.Update(context.Background(), scope, key, func(*memory.Memory) (memory.Change, error) {
		d, _ := memory.ParseDraft(memory.DraftInput{Type: "fact", Content: "sunny, 21 degrees"}, memory.Source{Channel: memory.ChannelTool})
		m, err := memory.New(w.ids.New(), scope, key, d, memory.Policy{}, w.clock.Now())
		return memory.Change{Memory: m, Event: memory.NewEvent(w.ids.New(), memory.OpAdd, nil, m)}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	w.drain()
	if len(w.embedder.Texts()) != 0 || len(w.search("sunny")) != 0 {
		t.Fatalf("a noise memory was embedded (%q) or indexed", w.embedder.Texts())
	}
	if s := w.get(key.String()).Vector().Status; s != memory.VectorSynced {
		t.Fatalf("status %s, want SYNCED", s)
	}
}

func TestSyncMemories_embedderFailureMarksFailedBacksOffAndRecovers(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.save("drink", "likes oolong tea")
	w.embedder.setFail(errors.New("embeddings endpoint: 503 Service Unavailable"))

	tot := w.drain()
	got := w.get("drink").Vector()
	if got.Status != memory.VectorFailed || !strings.Contains(got.Error, "503 Service Unavailable") || tot.Memories.Failures["embed"] != 1 {
		t.Fatalf("state %+v, report %+v; want FAILED with the embedder's error", got, tot.Memories)
	}
	// Backing off: nothing is due at once, so the drain ends without calling again.
	calls := w.embedder.calls
	if tot := w.drain(); tot.Memories.Claimed != 0 || w.embedder.calls != calls {
		t.Fatalf("retried at once: %+v", tot.Memories)
	}
	bl, _ := w.sync.Backlog(context.Background())
	if bl.FailedMemories != 1 || !bl.OldestDirty.Equal(start) {
		t.Fatalf("backlog %+v, want one FAILED memory waiting since %s", bl, start)
	}

	// Still down at the first retry: the wait doubles.
	w.clock.Advance(indexing.DefaultRetry.Delay(1))
	w.drain()
	if w.embedder.calls != calls+1 {
		t.Fatalf("%d calls after the backoff, want %d", w.embedder.calls, calls+1)
	}
	w.clock.Advance(indexing.DefaultRetry.Delay(1))
	if tot := w.drain(); tot.Memories.Claimed != 0 {
		t.Fatal("the second wait did not double")
	}

	w.embedder.setFail(nil)
	w.clock.Advance(indexing.DefaultRetry.Delay(2))
	w.drain()
	if got := w.get("drink").Vector(); got.Status != memory.VectorSynced || got.Error != "" {
		t.Fatalf("state %+v after recovery, want SYNCED without error", got)
	}
	if len(w.search("tea")) != 1 {
		t.Fatal("not searchable after recovery")
	}
}

func TestSyncMemories_vectorStoreDownKeepsTheWork(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.save("drink", "likes oolong tea")
	w.index.setDown(true)
	tot := w.drain()
	if got := w.get("drink").Vector(); got.Status != memory.VectorFailed || !strings.Contains(got.Error, "connection refused") ||
		tot.Memories.Failures["upsert"] != 1 {
		t.Fatalf("state %+v, report %+v; want FAILED by the upsert", got, tot.Memories)
	}
	w.index.setDown(false)
	w.clock.Advance(time.Hour)
	w.drain()
	if got := w.get("drink").Vector(); got.Status != memory.VectorSynced {
		t.Fatalf("state %+v, want SYNCED once the store is back", got)
	}
}

func TestReindex_afterModelChangeRebuildsEveryVector(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	a := w.save("drink", "likes oolong tea")
	b := w.save("city", "lives in Wuhan")
	w.post("c1", [2]string{"user", "I went hiking"}, [2]string{"assistant", "Where did you go?"})
	w.drain()

	// The operator switches the embedding model: a new, empty index of the new
	// model, and a reindex.
	w.embedder.model = "test-model-v2"
	w.useIndex()
	before := len(w.embedder.Texts())
	re := indexing.NewReindexer(w.sync, w.clock, nil)
	n, err := re.ReindexAll(context.Background())
	if err != nil || n.Memories != 2 || n.Messages != 2 {
		t.Fatalf("ReindexAll = %+v, %v; want 2 memories and 2 messages", n, err)
	}
	w.drain()
	if got := len(w.embedder.Texts()) - before; got != 4 {
		t.Fatalf("%d texts embedded by the reindex, want all 4", got)
	}
	for _, id := range []string{a.ID(), b.ID()} {
		if w.vectorOf(id) == nil {
			t.Fatalf("memory %s has no vector in the new index", id)
		}
	}
	if got := w.get("drink").Vector().Model; got != "test-model-v2" {
		t.Fatalf("model %q, want the new one", got)
	}
	if ids := w.search("hiking", memory.KindMessage); len(ids) != 2 {
		t.Fatalf("messages in the new index: %v", ids)
	}
}

func TestReindex_tenantIsScopedAndRequired(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.save("drink", "likes oolong tea")
	other := memory.Scope{Tenant: "t2", User: "bob"}
	if _, err := w.svc.Save(context.Background(), memories.Save{Scope: other, Key: "drink", Draft: memory.DraftInput{Type: "fact", Content: "coffee"}}); err != nil {
		t.Fatal(err)
	}
	w.drain()
	re := indexing.NewReindexer(w.sync, w.clock, nil)
	if _, err := re.ReindexTenant(context.Background(), ""); err == nil {
		t.Fatal("ReindexTenant with no tenant requeued everything")
	}
	n, err := re.ReindexTenant(context.Background(), "t2")
	if err != nil || n.Memories != 1 {
		t.Fatalf("ReindexTenant(t2) = %+v, %v", n, err)
	}
	if s := w.get("drink").Vector().Status; s != memory.VectorSynced {
		t.Fatalf("tenant t1's memory is %s after t2's reindex", s)
	}
}

func TestSyncMemories_aBadVectorFailsAloneAndUnreadableTextGetsNone(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	good := w.save("drink", "likes oolong tea")
	w.save("bad", "POISON")
	blank := w.save("blank", "BLANK")
	tot := w.drain()
	if got := w.get("drink").Vector().Status; got != memory.VectorSynced || w.vectorOf(good.ID()) == nil {
		t.Fatalf("a good memory in a batch with a bad vector: %s, vector %v", got, w.vectorOf(good.ID()) != nil)
	}
	if got := w.get("bad").Vector(); got.Status != memory.VectorFailed || !strings.Contains(got.Error, "NaN") {
		t.Fatalf("the bad memory: %+v, want FAILED naming the NaN", got)
	}
	if got := w.get("blank").Vector(); got.Status != memory.VectorSynced || w.vectorOf(blank.ID()) != nil {
		t.Fatalf("unreadable text: %+v with vector %v, want SYNCED without a vector", got, w.vectorOf(blank.ID()) != nil)
	}
	if tot.Memories.Failures["upsert"] != 1 {
		t.Fatalf("failures %v, want the one bad upsert", tot.Memories.Failures)
	}
}

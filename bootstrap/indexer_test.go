package bootstrap

import (
	"context"
	"testing"
	"time"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"engram/app/indexing"
	"engram/app/memories"
	"engram/bootstrap/config"
	"engram/domain/memory"
	"engram/ports"
	"engram/test/fakemilvus"
	"engram/test/wait"
)

// vectorApp is one engram process with the indexer role on a data directory.
type vectorApp struct {
	app      *fxtest.App
	memories *memories.Service
	index    ports.VectorIndex
	embedder ports.Embedder
	store    ports.MemoryStore
	reindex  *indexing.Reindexer
}

func startVectorApp(t *testing.T, dir string, env ...string) *vectorApp {
	t.Helper()
	environ := append([]string{"ENGRAM_DATA_DIR=" + dir, "ENGRAM_ROLES=indexer", "ENGRAM_LOG_LEVEL=warn",
		"MEMORY_INDEX_WORKER_INTERVAL_SEC=3600"}, env...)
	cfg, err := config.Load("", environ)
	if err != nil {
		t.Fatal(err)
	}
	v := &vectorApp{}
	v.app = fxtest.New(t, appOptions(cfg), fx.Populate(&v.memories, &v.index, &v.embedder, &v.store, &v.reindex))
	v.app.RequireStart()
	return v
}

// waitSynced polls until the memory is SYNCED with the embedder's model (the
// interval is an hour: only the in-process signal can wake the indexer).
func (v *vectorApp) waitSynced(t *testing.T, scope memory.Scope, key string) memory.Memory {
	t.Helper()
	var (
		m   memory.Memory
		err error
	)
	if !wait.For(10*time.Second, func() bool {
		m, err = v.store.Get(context.Background(), scope, memory.MustParseKey(key))
		return err == nil && m.Vector().Status == memory.VectorSynced && m.Vector().Model == v.embedder.Model()
	}) {
		t.Fatalf("memory %s not synced with %s: %+v (%v)", key, v.embedder.Model(), m.Vector(), err)
	}
	return m
}

func (v *vectorApp) nearest(t *testing.T, scope memory.Scope, text string) []string {
	t.Helper()
	q, err := v.embedder.Embed(context.Background(), []string{text})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := v.index.Search(context.Background(), ports.VectorQuery{Tenant: scope.Tenant, User: scope.User, Vector: q[0], Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}

func TestIndexer_writeIsSignalledRestartKeepsVectorsModelChangeNeedsReindex(t *testing.T) {
	dir := t.TempDir()
	scope := memory.Scope{Tenant: "default", User: "alice"}
	ctx := context.Background()

	// A write wakes the indexer at once, although it polls only hourly.
	a := startVectorApp(t, dir, "ENGRAM_LOCAL_EMBEDDING_DIM=64")
	res, err := a.memories.Save(ctx, memories.Save{Scope: scope, Key: "drink", Draft: memory.DraftInput{Type: "fact", Content: "likes oolong tea"}})
	if err != nil {
		t.Fatal(err)
	}
	a.waitSynced(t, scope, "drink")
	if ids := a.nearest(t, scope, "oolong"); len(ids) != 1 || ids[0] != res.Memory.ID() {
		t.Fatalf("nearest = %v, want the saved memory", ids)
	}
	a.app.RequireStop()

	// A restart loads the vectors from SQL: searchable before anything is embedded.
	b := startVectorApp(t, dir, "ENGRAM_LOCAL_EMBEDDING_DIM=64")
	if ids := b.nearest(t, scope, "oolong"); len(ids) != 1 {
		t.Fatalf("after a restart nearest = %v, want the stored vector", ids)
	}
	b.app.RequireStop()

	// Another model (here the dimension): its index starts empty and the memory
	// still says it was synced with the old model, until a reindex.
	c := startVectorApp(t, dir, "ENGRAM_LOCAL_EMBEDDING_DIM=128")
	if ids := c.nearest(t, scope, "oolong"); len(ids) != 0 {
		t.Fatalf("the new model's index holds %v before the reindex", ids)
	}
	n, err := c.reindex.ReindexAll(ctx)
	if err != nil || n.Memories != 1 {
		t.Fatalf("ReindexAll = %+v, %v", n, err)
	}
	m := c.waitSynced(t, scope, "drink")
	if m.Vector().Model != "engram-localembed-v1-d128" {
		t.Fatalf("model after reindex %q", m.Vector().Model)
	}
	if ids := c.nearest(t, scope, "oolong"); len(ids) != 1 || ids[0] != res.Memory.ID() {
		t.Fatalf("after the reindex nearest = %v, want the memory", ids)
	}
	c.app.RequireStop()
}

// With ENGRAM_VECTOR_BACKEND=milvus (here the in-process fake of the Milvus
// service), a saved memory is indexed into the collection of the embedder's model
// and found by a vector search.
func TestIndexer_milvusBackendIndexesAndSearches(t *testing.T) {
	fake := fakemilvus.Start(t)
	a := startVectorApp(t, t.TempDir(), "ENGRAM_LOCAL_EMBEDDING_DIM=64", "ENGRAM_VECTOR_BACKEND=milvus",
		"MEMORY_MILVUS_URI=http://"+fake.Addr())
	scope := memory.Scope{Tenant: "default", User: "alice"}
	res, err := a.memories.Save(context.Background(), memories.Save{Scope: scope, Key: "drink", Draft: memory.DraftInput{Type: "fact", Content: "likes oolong tea"}})
	if err != nil {
		t.Fatal(err)
	}
	a.waitSynced(t, scope, "drink")
	if ids := a.nearest(t, scope, "oolong"); len(ids) != 1 || ids[0] != res.Memory.ID() {
		t.Fatalf("nearest in Milvus = %v, want the saved memory", ids)
	}
	a.app.RequireStop()
}

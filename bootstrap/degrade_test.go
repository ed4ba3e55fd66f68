package bootstrap

import (
	"context"
	"testing"
	"time"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"engram/app/memories"
	"engram/app/retrieval"
	"engram/bootstrap/config"
	"engram/domain/memory"
	"engram/ports"
	"engram/test/fakemilvus"
	"engram/test/wait"
)

// The vector store going away mid-run costs no request: searches answer from
// lexical search with the reason, the breaker stops paying for the dead store, and
// when the store is back the breaker's probe finds it.
func TestSearch_vectorStoreStoppedMidRunDegradesToLexical(t *testing.T) {
	fake := fakemilvus.Start(t)
	cfg, err := config.Load("", []string{"ENGRAM_DATA_DIR=" + t.TempDir(), "ENGRAM_ROLES=indexer",
		"ENGRAM_LOG_LEVEL=error", "ENGRAM_LOCAL_EMBEDDING_DIM=64", "ENGRAM_VECTOR_BACKEND=milvus",
		"MEMORY_MILVUS_URI=http://" + fake.Addr(), "MEMORY_INDEX_WORKER_INTERVAL_SEC=3600",
		"ENGRAM_VECTOR_BREAKER_FAILURES=3", "ENGRAM_VECTOR_BREAKER_COOLDOWN_SEC=1"})
	if err != nil {
		t.Fatal(err)
	}
	var (
		svc    *memories.Service
		search *retrieval.Service
		store  ports.MemoryStore
		emb    ports.Embedder
	)
	app := fxtest.New(t, appOptions(cfg), fx.Populate(&svc, &search, &store, &emb))
	app.RequireStart()
	defer app.RequireStop()

	ctx := context.Background()
	scope := memory.Scope{Tenant: "default", User: "alice"}
	for key, content := range map[string]string{"drink": "likes oolong tea", "city": "lives in Wuhan", "pet": "has a cat named Mochi"} {
		if _, err := svc.Save(ctx, memories.Save{Scope: scope, Key: key, Draft: memory.DraftInput{Type: "fact", Content: content}}); err != nil {
			t.Fatal(err)
		}
	}
	(&vectorApp{store: store, embedder: emb}).waitSynced(t, scope, "drink")
	(&vectorApp{store: store, embedder: emb}).waitSynced(t, scope, "pet")

	ask := func() retrieval.Result {
		t.Helper()
		res, err := search.Search(ctx, retrieval.Search{Scope: scope, Query: "what tea does she like", Mode: "auto", Limit: 3})
		if err != nil {
			t.Fatalf("search failed: %v", err)
		}
		if len(res.Items) == 0 || res.Items[0].Memory == nil || res.Items[0].Memory.Key() != memory.MustParseKey("drink") {
			t.Fatalf("search lost the answer: %+v", res.Items)
		}
		return res
	}
	if res := ask(); res.ModeUsed != retrieval.ModeAuto || res.FallbackReason != "" {
		t.Fatalf("with the store up: mode %s, fallback %q", res.ModeUsed, res.FallbackReason)
	}

	fake.Stop()
	reasons := map[string]int{}
	for range 10 {
		res := ask()
		if res.ModeUsed != retrieval.ModeLexical || res.FallbackReason == "" {
			t.Fatalf("with the store down: mode %s, fallback %q", res.ModeUsed, res.FallbackReason)
		}
		reasons[res.FallbackReason]++
	}
	if reasons[retrieval.FallbackBreakerOpen] == 0 {
		t.Errorf("the breaker never opened: %v", reasons)
	}
	t.Logf("fallback reasons while the store was down: %v", reasons)

	// Back on the same address: after the cool-down the probe closes the breaker.
	back := fakemilvus.New()
	if err := back.Listen(fake.Addr()); err != nil {
		t.Skipf("cannot listen on the old address again: %v", err)
	}
	t.Cleanup(back.Stop)
	var res retrieval.Result
	if !wait.For(30*time.Second, func() bool { res = ask(); return res.ModeUsed == retrieval.ModeAuto }) {
		t.Fatalf("vectors did not come back: last fallback %q", res.FallbackReason)
	}
}

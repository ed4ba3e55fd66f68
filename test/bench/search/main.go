// Command search measures search at scale, server-side (the search use case called
// in process, as the HTTP handler calls it): p50/p95/p99 latency per mode for one
// user holding 100,000 memories and for users with 1,000 messages each among
// 1,000,000, plus the cold load of a user's lexical index, start-up and RSS.
//
// The data is built once into a data directory through the app's use cases and the
// indexer role's passes (the bulk path: messages posted 500 per batch, memories
// saved by 8 concurrent writers, lexical and vector passes run to completion), then
// reused:
//
//	go run ./test/bench/search -dir /tmp/engram-search -build      # build, then measure
//	go run ./test/bench/search -dir /tmp/engram-search             # measure only
//	go run ./test/bench/search -dir /tmp/s -build -users 10 -messages 10000 -memories 10000   # a quick run
//
// docs/BENCHMARKS.md "Search latency at scale" holds the figures.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"engram/adapters/clock"
	"engram/adapters/lexical"
	"engram/adapters/lexicon"
	"engram/adapters/localembed"
	"engram/adapters/localvec"
	"engram/adapters/sqlstore"
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

type config struct {
	dir        string
	dbURL      string
	build      bool
	users      int
	messages   int
	memories   int
	queries    int
	convLen    int
	seed       uint64
	vectorsOff bool
	cpuProfile string
	only       string
	expand     bool
	memProfile string
	exactToo   bool
}

func main() {
	var c config
	flag.StringVar(&c.dir, "dir", "/tmp/engram-bench-search", "data directory (SQLite file, kept between runs)")
	flag.StringVar(&c.dbURL, "db", "", "postgres:// URL instead of SQLite")
	flag.BoolVar(&c.build, "build", false, "build the data set first (into an empty data directory)")
	flag.IntVar(&c.users, "users", 1000, "users holding the messages")
	flag.IntVar(&c.messages, "messages", 1_000_000, "messages in all, spread evenly over the users")
	flag.IntVar(&c.memories, "memories", 100_000, "memories of the one big user")
	flag.IntVar(&c.queries, "queries", 300, "searches per mode and case")
	flag.IntVar(&c.convLen, "conversation", 50, "messages per conversation")
	flag.Uint64Var(&c.seed, "seed", 1, "random seed of the data and the queries")
	flag.BoolVar(&c.vectorsOff, "no-vectors", false, "build no vectors (lexical figures only)")
	flag.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the measured searches here")
	flag.StringVar(&c.memProfile, "memprofile", "", "write a heap profile after the warm-up here")
	flag.StringVar(&c.only, "only", "", "run only the rows whose \"case | mode\" contains this")
	flag.BoolVar(&c.exactToo, "exact-too", false, "also run dense and auto on a second vector index that scans every vector exactly (no int8 prefilter), and measure the prefilter's recall@10 against it")
	flag.BoolVar(&c.expand, "expand", true, "query expansion (ENGRAM_QUERY_EXPANSION)")
	flag.Parse()
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "search bench:", err)
		os.Exit(1)
	}
}

// bigUser holds the memories; message users are u0000…
var bigUser = memory.Scope{Tenant: "bench", User: "big"}

func messageUser(i int) memory.Scope {
	return memory.Scope{Tenant: "bench", User: fmt.Sprintf("u%04d", i)}
}

func run(c config) error {
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, sqlstore.Options{DatabaseURL: c.dbURL, DataDir: c.dir})
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	analyzer := textanalysis.New(textanalysis.Options{})
	embedder, err := localembed.New(localembed.Options{Analyzer: analyzer})
	if err != nil {
		return err
	}
	vg := newVocabulary(c.seed)
	if c.build {
		if err := build(ctx, c, db, analyzer, embedder, vg); err != nil {
			return err
		}
	}
	return measure(ctx, c, db, analyzer, embedder, vg)
}

// ---------------------------------------------------------------- build

func build(ctx context.Context, c config, db *sqlstore.DB, an ports.TextAnalyzer, emb ports.Embedder, vg *vocabulary) error {
	clk := clock.System{}
	ids := ulids.New()
	memStore, msgStore, lexicalStore := sqlstore.NewMemoryStore(db), sqlstore.NewMessageStore(db), sqlstore.NewLexicalDocs(db)
	lexIndexer := indexing.NewLexicalIndexer(an, lexicalStore, sqlstore.NewLexicalCursors(db), memStore, msgStore, clk, indexing.LexicalOptions{MessageLag: -1})
	mems := memories.New(memStore, clk, ids, memory.Policy{})
	ingest := messages.New(msgStore, clk, ids, messages.Options{Debounce: 24 * time.Hour})
	total := time.Now()

	// Messages: users × (messages/users), conversations of convLen, 500 per post.
	start := time.Now()
	perUser := c.messages / c.users
	rng := rand.New(rand.NewPCG(c.seed, 7))
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var posted atomic.Int64
	work := make(chan int)
	var wg sync.WaitGroup
	var firstErr error
	var errOnce sync.Once
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, 11))
			for u := range work {
				scope := messageUser(u)
				var batch []conversation.Input
				for i := 0; i < perUser; i++ {
					conv := i / c.convLen
					at := base.Add(time.Duration(conv)*36*time.Hour + time.Duration(i%c.convLen)*time.Minute)
					role, name := "user", vg.names[u%len(vg.names)]
					if i%2 == 1 {
						role, name = "assistant", vg.names[(u+7)%len(vg.names)]
					}
					batch = append(batch, conversation.Input{ConversationID: fmt.Sprintf("c%03d", conv), Role: role, Name: name,
						Content: vg.sentence(r, 8+r.IntN(14)), CreatedAt: at})
					if len(batch) == messages.MaxBatch || i == perUser-1 {
						if _, err := ingest.PostBatch(ctx, messages.PostBatch{Scope: scope, Messages: batch}); err != nil {
							errOnce.Do(func() { firstErr = err })
							return
						}
						posted.Add(int64(len(batch)))
						batch = batch[:0]
					}
				}
			}
		}(rng.Uint64())
	}
	for u := 0; u < c.users; u++ {
		work <- u
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		return fmt.Errorf("post messages: %w", firstErr)
	}
	took := time.Since(start)
	fmt.Printf("build: posted %d messages of %d users in %s (%.0f messages/s, messages:batch of 500, 4 writers)\n",
		posted.Load(), c.users, took.Round(time.Millisecond), float64(posted.Load())/took.Seconds())

	// Memories of the big user: memory_save by 8 concurrent writers.
	start = time.Now()
	keys := make(chan int)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, 13))
			for i := range keys {
				typ := memory.Types[i%len(memory.Types)]
				_, err := mems.Save(ctx, memories.Save{Scope: bigUser, Key: fmt.Sprintf("%s-%s_%d", typ, vg.word(r), i),
					Draft: memory.DraftInput{Type: string(typ), Content: vg.memoryContent(r)}})
				if err != nil {
					errOnce.Do(func() { firstErr = err })
					return
				}
			}
		}(rng.Uint64())
	}
	for i := 0; i < c.memories; i++ {
		keys <- i
	}
	close(keys)
	wg.Wait()
	if firstErr != nil {
		return fmt.Errorf("save memories: %w", firstErr)
	}
	took = time.Since(start)
	fmt.Printf("build: saved %d memories of one user in %s (%.0f saves/s, 8 writers)\n", c.memories, took.Round(time.Millisecond), float64(c.memories)/took.Seconds())

	// Lexical documents: the indexer role's passes.
	start = time.Now()
	n, err := lexIndexer.IndexMessages(ctx)
	if err != nil {
		return err
	}
	took = time.Since(start)
	fmt.Printf("build: lexical pass indexed %d messages in %s (%.0f messages/s)\n", n, took.Round(time.Millisecond), float64(n)/took.Seconds())
	start = time.Now()
	n, err = lexIndexer.RepairMemories(ctx) // memories saved without the write-path decorator
	if err != nil {
		return err
	}
	took = time.Since(start)
	fmt.Printf("build: lexical repair pass indexed %d memories in %s (%.0f memories/s)\n", n, took.Round(time.Millisecond), float64(n)/took.Seconds())

	if c.vectorsOff {
		fmt.Printf("build: total %s (no vectors)\n\n", time.Since(total).Round(time.Second))
		return nil
	}
	// Vectors: the indexer role's use case over the local index persisted in SQL.
	start = time.Now()
	vecStore := sqlstore.NewLocalVectorStore(db, emb.Model(), emb.Dimension())
	vectors, err := localvec.OpenDurable(ctx, vecStore, localvec.Options{Dimension: emb.Dimension()})
	if err != nil {
		return err
	}
	vix := indexing.New(sqlstore.NewVectorQueue(db), emb, vectors, clk, indexing.Options{BatchSize: 512, Lease: time.Hour}, nil)
	items := 0
	for _, sync := range []func(context.Context) (indexing.Report, error){vix.SyncMemories, vix.SyncMessages} {
		for {
			rep, err := sync(ctx)
			if err != nil {
				return err
			}
			if rep.Failed > 0 {
				return fmt.Errorf("vector sync: %d failed: %v", rep.Failed, rep.Failures)
			}
			items += rep.Synced
			if rep.Claimed == 0 {
				break
			}
		}
	}
	took = time.Since(start)
	fmt.Printf("build: vector passes embedded and stored %d items in %s (%.0f items/s)\n", items, took.Round(time.Millisecond), float64(items)/took.Seconds())
	fmt.Printf("build: total %s\n\n", time.Since(total).Round(time.Second))
	return nil
}

// ---------------------------------------------------------------- measure

type latencies []time.Duration

func (l latencies) pct(p float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	s := slices.Clone(l)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func measure(ctx context.Context, c config, db *sqlstore.DB, an ports.TextAnalyzer, emb ports.Embedder, vg *vocabulary) error {
	clk := clock.System{}
	memStore, msgStore := sqlstore.NewMemoryStore(db), sqlstore.NewMessageStore(db)
	start := time.Now()
	var vectors, exactVectors ports.VectorIndex
	if !c.vectorsOff {
		d, err := localvec.OpenDurable(ctx, sqlstore.NewLocalVectorStore(db, emb.Model(), emb.Dimension()), localvec.Options{Dimension: emb.Dimension()})
		if err != nil {
			return err
		}
		vectors = d
		fmt.Printf("start-up: loaded %d vectors in %s\n", d.Index().Len(), time.Since(start).Round(time.Millisecond))
		if c.exactToo {
			exact, err := localvec.OpenDurable(ctx, sqlstore.NewLocalVectorStore(db, emb.Model(), emb.Dimension()),
				localvec.Options{Dimension: emb.Dimension(), Prefilter: localvec.PrefilterOptions{Threshold: -1}})
			if err != nil {
				return err
			}
			exactVectors = exact
		}
	}
	access := retrieval.NewAccessTracker(memStore, retrieval.AccessOptions{})
	actx, stop := context.WithCancel(ctx)
	go access.Run(actx)
	defer func() { stop(); <-access.Done() }()
	deps := retrieval.Deps{Analyzer: an, Lexical: lexical.New(sqlstore.NewLexicalDocs(db), lexical.Options{}), Memories: memStore, Messages: msgStore,
		Access: access, Clock: clk}
	exactDeps := deps
	if vectors != nil {
		guard := retrieval.NewVectorGuard(clk, retrieval.GuardOptions{})
		deps.Embedder, deps.Vectors = guard.Embedder(emb), guard.Index(vectors)
	}
	if c.expand {
		exp := lexicon.New(an, lexicon.Weights{})
		if err := exp.Load(); err != nil {
			return err
		}
		deps.Expander = exp
	}
	svc := retrieval.New(deps, retrieval.Options{})
	var exactSvc *retrieval.Service
	if exactVectors != nil {
		guard := retrieval.NewVectorGuard(clk, retrieval.GuardOptions{})
		exactDeps.Embedder, exactDeps.Vectors, exactDeps.Expander = guard.Embedder(emb), guard.Index(exactVectors), deps.Expander
		exactSvc = retrieval.New(exactDeps, retrieval.Options{})
		if err := prefilterRecall(ctx, c, emb, vectors, exactVectors, vg); err != nil {
			return err
		}
	}
	rng := rand.New(rand.NewPCG(c.seed, 99))

	// Cold loads: the first search of a user reads its lexical documents.
	for _, sc := range []memory.Scope{bigUser, messageUser(0)} {
		within := retrieval.WithinMemories
		if sc != bigUser {
			within = retrieval.WithinMessages
		}
		t0 := time.Now()
		if _, err := svc.Search(ctx, retrieval.Search{Scope: sc, Query: "warm up", Within: within, Mode: "lexical"}); err != nil {
			return err
		}
		fmt.Printf("cold: first search of %s (%s) took %s (loads the user's lexical index)\n", sc.User, within, time.Since(t0).Round(time.Millisecond))
	}
	// Warm every message user once (the LRU holds them all at this size).
	t0 := time.Now()
	for u := 0; u < c.users; u++ {
		if _, err := svc.Search(ctx, retrieval.Search{Scope: messageUser(u), Query: "warm up", Within: retrieval.WithinMessages, Mode: "lexical"}); err != nil {
			return err
		}
	}
	fmt.Printf("cold: loading all %d message users took %s\n", c.users, time.Since(t0).Round(time.Millisecond))
	runtime.GC()
	fmt.Printf("memory after warm-up: RSS %s, Go heap in use %s\n\n", rss(), heap())
	if c.memProfile != "" {
		f, err := os.Create(c.memProfile)
		if err != nil {
			return err
		}
		if err := pprof.WriteHeapProfile(f); err != nil {
			return err
		}
		_ = f.Close()
	}

	modes := []string{"lexical", "dense", "auto"}
	if c.vectorsOff {
		modes = []string{"lexical"}
	}
	type row struct {
		name string
		lat  latencies
		hits int
		fall int
	}
	var rows []row
	cases := []struct {
		name   string
		scope  func() memory.Scope
		within string
		modes  []string
		query  func() string
	}{
		{"one user, 100k memories", func() memory.Scope { return bigUser }, retrieval.WithinMemories, append(modes, "full_inject"), func() string { return vg.memoryQuery(rng) }},
		{"1,000 messages of one of 1,000 users", func() memory.Scope { return messageUser(rng.IntN(c.users)) }, retrieval.WithinMessages, modes, func() string { return vg.messageQuery(rng) }},
		{"scope all, a message user", func() memory.Scope { return messageUser(rng.IntN(c.users)) }, retrieval.WithinAll, modes, func() string { return vg.messageQuery(rng) }},
	}
	if c.cpuProfile != "" {
		f, err := os.Create(c.cpuProfile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	type variant struct {
		label string
		svc   *retrieval.Service
	}
	for _, cs := range cases {
		for _, mode := range cs.modes {
			variants := []variant{{mode, svc}}
			if exactSvc != nil && (mode == "dense" || mode == "auto") {
				variants = append(variants, variant{mode + " (exact scan)", exactSvc})
			}
			for _, v := range variants {
				r := row{name: cs.name + " | " + v.label}
				if !strings.Contains(r.name, c.only) {
					continue
				}
				for i := 0; i < c.queries; i++ {
					q := retrieval.Search{Scope: cs.scope(), Query: cs.query(), Within: cs.within, Mode: mode}
					t := time.Now()
					res, err := v.svc.Search(ctx, q)
					if err != nil {
						return err
					}
					r.lat = append(r.lat, time.Since(t))
					r.hits += len(res.Items)
					if res.FallbackReason != "" {
						r.fall++
					}
				}
				rows = append(rows, r)
			}
		}
	}
	fmt.Println("| case | mode | p50 | p95 | p99 | results/search | fallbacks |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		name, mode, _ := strings.Cut(r.name, " | ")
		fmt.Printf("| %s | %s | %s | %s | %s | %.1f | %d |\n", name, mode, ms(r.lat.pct(0.5)), ms(r.lat.pct(0.95)), ms(r.lat.pct(0.99)),
			float64(r.hits)/float64(len(r.lat)), r.fall)
	}
	runtime.GC()
	fmt.Printf("\nmemory after the run: RSS %s, Go heap in use %s\n", rss(), heap())
	return nil
}

// prefilterRecall prints recall@10 of the default vector index (int8 prefilter)
// against the exact scan, for the big user's memory queries.
func prefilterRecall(ctx context.Context, c config, emb ports.Embedder, fast, exact ports.VectorIndex, vg *vocabulary) error {
	rng := rand.New(rand.NewPCG(c.seed, 7))
	var found, wanted int
	for range c.queries {
		vecs, err := emb.Embed(ctx, []string{vg.memoryQuery(rng)})
		if err != nil {
			return err
		}
		q := ports.VectorQuery{Tenant: bigUser.Tenant, User: bigUser.User, Kinds: []memory.Kind{memory.KindMemory}, Vector: vecs[0], Limit: 10}
		want, err := exact.Search(ctx, q)
		if err != nil {
			return err
		}
		got, err := fast.Search(ctx, q)
		if err != nil {
			return err
		}
		ids := make(map[string]bool, len(want))
		for _, h := range want {
			ids[h.ID] = true
		}
		for _, h := range got {
			if ids[h.ID] {
				found++
			}
		}
		wanted += len(want)
	}
	fmt.Printf("vector recall@10 of the default index against the exact scan, %d memory queries of the big user: %.4f\n\n", c.queries, float64(found)/float64(max(1, wanted)))
	return nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func rss() string {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmRSS:"))
		}
	}
	return "?"
}

func heap() string {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return fmt.Sprintf("%d MiB", m.HeapInuse>>20)
}

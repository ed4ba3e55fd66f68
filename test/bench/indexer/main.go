// Command indexer measures the indexer role's throughput: memories and messages
// made DIRTY by the app, then embedded with the local embedder, written to the
// vector index and marked SYNCED by app/indexing, batch after batch, as the role
// runs it. It reports items per second, where the time goes (embedding, vector
// writes, the SQL claims and outcomes), and the process's peak RSS.
//
//	go run ./test/bench/indexer                                    # embedded SQLite, localvec
//	go run ./test/bench/indexer -db "$ENGRAM_TEST_POSTGRES_DSN"     # PostgreSQL: localvec and pgvector
//
// With -db, a scratch database is created on that server and dropped afterwards.
// docs/BENCHMARKS.md "Vector indexing" holds the figures.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"net/url"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"
	"github.com/uptrace/bun/driver/pgdriver"

	"engram/adapters/localembed"
	"engram/adapters/localvec"
	"engram/adapters/pgvector"
	"engram/adapters/sqlstore"
	"engram/adapters/ulids"
	"engram/app/indexing"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
)

type config struct {
	db       string
	memories int
	messages int
	convLen  int
	users    int
	batches  []int
	dim      int
	backends []string
}

func main() {
	var (
		c       config
		batches string
		backend string
	)
	flag.StringVar(&c.db, "db", "", "postgres:// URL of a server to run on (a scratch database is created); empty = SQLite")
	flag.IntVar(&c.memories, "memories", 20000, "memories to index")
	flag.IntVar(&c.messages, "messages", 20000, "messages to index")
	flag.IntVar(&c.convLen, "conversation", 20, "messages per conversation")
	flag.IntVar(&c.users, "users", 200, "users the memories and conversations belong to")
	flag.StringVar(&batches, "batch", "32,256", "MEMORY_INDEX_WORKER_BATCH_SIZE values to measure")
	flag.IntVar(&c.dim, "dim", localembed.DefaultDimension, "local embedder dimension")
	flag.StringVar(&backend, "backend", "", "vector backends: local (default), and pgvector too when -db is set")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(2)
		}
		_ = pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	for _, b := range strings.Split(batches, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(b))
		if err != nil || n < 1 {
			fmt.Fprintln(os.Stderr, "bench: -batch: bad size", b)
			os.Exit(2)
		}
		c.batches = append(c.batches, n)
	}
	c.backends = []string{"local"}
	if c.db != "" {
		c.backends = append(c.backends, "pgvector")
	}
	if backend != "" {
		c.backends = strings.Split(backend, ",")
	}
	if err := run(c); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(c config) error {
	fmt.Printf("indexer benchmark: %d memories, %d messages (conversations of %d), %d users, local embedder d%d, GOMAXPROCS %d\n",
		c.memories, c.messages, c.convLen, c.users, c.dim, runtime.GOMAXPROCS(0))
	fmt.Println("| database | vector backend | batch | kind | items | items/s | embed | vector writes | SQL and rest |")
	fmt.Println("|---|---|---:|---|---:|---:|---:|---:|---:|")
	for _, backend := range c.backends {
		for _, batch := range c.batches {
			if err := runOne(c, backend, batch); err != nil {
				return fmt.Errorf("%s, batch %d: %w", backend, batch, err)
			}
		}
	}
	fmt.Printf("\npeak RSS %s\n", peakRSS())
	return nil
}

func runOne(c config, backend string, batch int) error {
	ctx := context.Background()
	db, dbName, cleanup, err := openScratch(ctx, c.db)
	if err != nil {
		return err
	}
	defer cleanup()

	emb, err := localembed.New(localembed.Options{Dimension: c.dim})
	if err != nil {
		return err
	}
	clk := &benchClock{now: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
	if err := fill(ctx, db, c, clk); err != nil {
		return err
	}

	var index ports.VectorIndex
	switch backend {
	case "local":
		d, err := localvec.OpenDurable(ctx, sqlstore.NewLocalVectorStore(db, emb.Model(), emb.Dimension()), localvec.Options{Dimension: emb.Dimension()})
		if err != nil {
			return err
		}
		index = d
	case "pgvector":
		if db.Dialect() != sqlstore.DialectPostgres {
			return fmt.Errorf("pgvector needs -db")
		}
		p, err := pgvector.Open(ctx, db.Bun(), pgvector.Options{Model: emb.Model(), Dimension: emb.Dimension()})
		if err != nil {
			return err
		}
		index = p
	default:
		return fmt.Errorf("unknown backend %q", backend)
	}
	timedEmb := &timedEmbedder{Embedder: emb}
	timedIx := &timedIndex{VectorIndex: index}
	ix := indexing.New(sqlstore.NewVectorQueue(db), timedEmb, timedIx, clk, indexing.Options{Worker: "bench", BatchSize: batch}, nil)

	for _, pass := range []struct {
		kind string
		sync func(context.Context) (indexing.Report, error)
		want int
	}{
		{"memories", ix.SyncMemories, c.memories},
		{"messages", ix.SyncMessages, c.messages},
	} {
		timedEmb.reset()
		timedIx.reset()
		start := time.Now()
		done := 0
		for {
			rep, err := pass.sync(ctx)
			if err != nil {
				return err
			}
			if rep.Claimed == 0 {
				break
			}
			if rep.Failed > 0 {
				return fmt.Errorf("%s: %d failed: %v", pass.kind, rep.Failed, rep.Failures)
			}
			done += rep.Synced
		}
		took := time.Since(start)
		if done != pass.want {
			return fmt.Errorf("%s: %d synced, want %d", pass.kind, done, pass.want)
		}
		embed, write := timedEmb.total(), timedIx.total()
		fmt.Printf("| %s | %s | %d | %s | %d | %.0f | %s | %s | %s |\n", dbName, backend, batch, pass.kind, done,
			float64(done)/took.Seconds(), share(embed, took), share(write, took), share(took-embed-write, took))
	}

	// A reindex with the same model: messages reuse their stored embeddings.
	if _, err := sqlstore.NewVectorQueue(db).Requeue(ctx, "", clk.Now()); err != nil {
		return err
	}
	timedEmb.reset()
	timedIx.reset()
	start := time.Now()
	done := 0
	for {
		rep, err := ix.SyncMessages(ctx)
		if err != nil {
			return err
		}
		if rep.Claimed == 0 {
			break
		}
		done += rep.Synced
	}
	took := time.Since(start)
	embed, write := timedEmb.total(), timedIx.total()
	fmt.Printf("| %s | %s | %d | messages, reindex (embeddings reused) | %d | %.0f | %s | %s | %s |\n", dbName, backend, batch, done,
		float64(done)/took.Seconds(), share(embed, took), share(write, took), share(took-embed-write, took))
	return nil
}

// fill stores the memories and messages, all DIRTY, through the stores.
func fill(ctx context.Context, db *sqlstore.DB, c config, clk *benchClock) error {
	mems := sqlstore.NewMemoryStore(db)
	msgs := sqlstore.NewMessageStore(db)
	ids := ulids.New()
	words := strings.Fields("tea coffee hiking chess piano Wuhan Kyoto painting running swimming dogs cats garden novels jazz football cooking travel photography yoga")
	topic := func(i int) string { return words[i%len(words)] + " " + words[(i*7+3)%len(words)] }

	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		fillErr error
	)
	const writers = 8
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < c.memories; i += writers {
				sc := memory.Scope{Tenant: "bench", User: fmt.Sprintf("user-%04d", i%c.users)}
				key := memory.MustParseKey(fmt.Sprintf("note-%06d", i))
				d, err := memory.ParseDraft(memory.DraftInput{Type: "fact",
					Content: fmt.Sprintf("The user mentioned %s on day %d and wants to remember it", topic(i), i%365)},
					memory.Source{Channel: memory.ChannelTool})
				if err == nil {
					_, err = mems.Update(ctx, sc, key, func(*memory.Memory) (memory.Change, error) {
						m, err := memory.New(ids.New(), sc, key, d, memory.Policy{}, clk.Now())
						return memory.Change{Memory: m, Event: memory.NewEvent(ids.New(), memory.OpAdd, nil, m)}, err
					})
				}
				if err != nil {
					mu.Lock()
					fillErr = err
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	if fillErr != nil {
		return fmt.Errorf("fill memories: %w", fillErr)
	}

	base := clk.Now()
	for conv := 0; conv*c.convLen < c.messages; conv++ {
		sc := memory.Scope{Tenant: "bench", User: fmt.Sprintf("user-%04d", conv%c.users)}
		var batch []conversation.Message
		for i := 0; i < c.convLen && conv*c.convLen+i < c.messages; i++ {
			n := conv*c.convLen + i
			at := base.Add(time.Duration(n) * time.Second)
			m, err := conversation.New(sc, conversation.Input{
				ConversationID: fmt.Sprintf("conv-%05d", conv), Role: []string{"user", "assistant"}[i%2],
				Name:      []string{"Alice", "Assistant"}[i%2],
				Content:   fmt.Sprintf("Turn %d: I spent the weekend on %s, and next month I will try %s again.", i, topic(n), topic(n+5)),
				CreatedAt: at,
			}, ids.New(), at, 0)
			if err != nil {
				return err
			}
			batch = append(batch, m)
		}
		if _, err := msgs.Ingest(ctx, sc, batch); err != nil {
			return fmt.Errorf("fill messages: %w", err)
		}
	}
	return nil
}

// openScratch opens a fresh database: SQLite in a temporary directory, or a new
// database on the PostgreSQL server dsn names.
func openScratch(ctx context.Context, dsn string) (*sqlstore.DB, string, func(), error) {
	if dsn == "" {
		dir, err := os.MkdirTemp("", "engram-indexer-bench-")
		if err != nil {
			return nil, "", nil, err
		}
		db, err := sqlstore.Open(ctx, sqlstore.Options{DataDir: dir})
		if err != nil {
			return nil, "", nil, err
		}
		if err := db.Migrate(ctx); err != nil {
			return nil, "", nil, err
		}
		return db, "SQLite", func() { _ = db.Close(); _ = os.RemoveAll(dir) }, nil
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return nil, "", nil, err
	}
	name := "engram_bench_" + strings.ToLower(ulid.Make().String())
	admin := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		_ = admin.Close()
		return nil, "", nil, err
	}
	drop := func() {
		_, _ = admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		_ = admin.Close()
	}
	u.Path = "/" + name
	db, err := sqlstore.Open(ctx, sqlstore.Options{DatabaseURL: u.String()})
	if err != nil {
		drop()
		return nil, "", nil, err
	}
	if _, err := db.Bun().ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS vector"); err != nil {
		_ = db.Close()
		drop()
		return nil, "", nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		_ = db.Close()
		drop()
		return nil, "", nil, err
	}
	return db, "PostgreSQL", func() { _ = db.Close(); drop() }, nil
}

type benchClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *benchClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// timedEmbedder and timedIndex add up the time spent in their calls.
type timedEmbedder struct {
	ports.Embedder
	mu sync.Mutex
	d  time.Duration
}

func (t *timedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	start := time.Now()
	v, err := t.Embedder.Embed(ctx, texts)
	t.mu.Lock()
	t.d += time.Since(start)
	t.mu.Unlock()
	return v, err
}

func (t *timedEmbedder) reset()               { t.mu.Lock(); t.d = 0; t.mu.Unlock() }
func (t *timedEmbedder) total() time.Duration { t.mu.Lock(); defer t.mu.Unlock(); return t.d }

type timedIndex struct {
	ports.VectorIndex
	mu sync.Mutex
	d  time.Duration
}

func (t *timedIndex) Upsert(ctx context.Context, records []ports.VectorRecord) error {
	start := time.Now()
	err := t.VectorIndex.Upsert(ctx, records)
	t.add(time.Since(start))
	return err
}

func (t *timedIndex) Delete(ctx context.Context, tenant string, ids []string) error {
	start := time.Now()
	err := t.VectorIndex.Delete(ctx, tenant, ids)
	t.add(time.Since(start))
	return err
}

func (t *timedIndex) add(d time.Duration)  { t.mu.Lock(); t.d += d; t.mu.Unlock() }
func (t *timedIndex) reset()               { t.mu.Lock(); t.d = 0; t.mu.Unlock() }
func (t *timedIndex) total() time.Duration { t.mu.Lock(); defer t.mu.Unlock(); return t.d }

func share(part, whole time.Duration) string {
	if whole <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", 100*part.Seconds()/whole.Seconds())
}

// peakRSS reads the process's high-water resident set (Linux).
func peakRSS() string {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:"))
		}
	}
	return "unknown"
}

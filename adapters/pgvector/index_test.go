package pgvector

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"

	"database/sql"

	"engram/domain/memory"
	"engram/ports"
	"engram/test/contract"
	"engram/test/testenv"
)

func openDB(t testing.TB) *bun.DB {
	t.Helper()
	dsn := testenv.NewPostgresDatabase(t)
	db := bun.NewDB(sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn))), pgdialect.New())
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// runContract runs the shared suite; cases share one database and are kept apart
// by model name, as two embedding models share a database.
func runContract(t *testing.T, opts Options) {
	db := openDB(t)
	var n atomic.Int64
	contract.RunVectorIndex(t, func(t *testing.T, dim int) ports.VectorIndex {
		o := opts
		o.Model, o.Dimension = fmt.Sprintf("contract-%d", n.Add(1)), dim
		ix, err := Open(context.Background(), db, o)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		return ix
	})
}

func TestVectorIndex_Postgres(t *testing.T) {
	t.Parallel()
	runContract(t, Options{})
}

// The same suite with every user above the exact threshold, so every search takes
// the HNSW path's SQL (ranking inside the filtered query, iterative scan). On the
// suite's small tables the planner answers it with exact plans; what this checks
// is that the path keeps every filter. TestHNSWPath_Postgres_usesTheGraph checks
// the graph itself.
func TestVectorIndex_PostgresHNSWPath(t *testing.T) {
	t.Parallel()
	runContract(t, Options{ExactThreshold: 1})
}

func TestOpen_Postgres_isIdempotentAndRegistersTheTable(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	a, err := Open(ctx, db, Options{Model: "openai/text-embedding-3-small/1536", Dimension: 16})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(ctx, db, Options{Model: "openai/text-embedding-3-small/1536", Dimension: 16})
	if err != nil {
		t.Fatalf("second Open: %v", err)
	}
	if a.Table() != b.Table() {
		t.Fatalf("tables %s and %s", a.Table(), b.Table())
	}
	var model string
	var dim int
	if err := db.NewRaw("SELECT model, dim FROM vector_tables WHERE table_name = ?", a.Table()).Scan(ctx, &model, &dim); err != nil {
		t.Fatal(err)
	}
	if model != "openai/text-embedding-3-small/1536" || dim != 16 {
		t.Fatalf("registered %q %d", model, dim)
	}
	if err := a.Ping(ctx); err != nil {
		t.Fatalf("Ping: %v", err)
	}
}

func TestTableName_isShortReadableAndDistinct(t *testing.T) {
	t.Parallel()
	long := "ollama/some-extremely-long-embedding-model-name:latest-with-a-tag/4096"
	names := map[string]bool{}
	for _, c := range []struct {
		model string
		dim   int
	}{{"engram-localembed-v1-d512", 512}, {"Engram-LocalEmbed-v1-d512", 512}, {long, 4096}, {long + "x", 4096}, {"a", 8}, {"a", 16}} {
		n := TableName(c.model, c.dim)
		if len(n) > 63 {
			t.Fatalf("%q is %d bytes, over PostgreSQL's 63", n, len(n))
		}
		if names[n] {
			t.Fatalf("%q named twice", n)
		}
		names[n] = true
	}
	if got := TableName("engram-localembed-v1-d512", 512); got[:34] != "vectors_engram_localembed_v1_d512_" {
		t.Fatalf("TableName = %q", got)
	}
}

func TestSearch_Postgres_unavailableWhenTheDatabaseIsGone(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ix, err := Open(context.Background(), db, Options{Model: "m", Dimension: 8})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done() // the deadline has passed
	_, err = ix.Search(ctx, ports.VectorQuery{Tenant: "t", User: "u", Vector: []float32{1, 0, 0, 0, 0, 0, 0, 0}, Limit: 3})
	if !errors.Is(err, ports.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Search past the deadline: %v, want ErrUnavailable and DeadlineExceeded", err)
	}
	_ = db.Close()
	err = ix.Upsert(context.Background(), []ports.VectorRecord{{ID: "x", Tenant: "t", User: "u", Kind: memory.KindMemory, Vector: []float32{1, 0, 0, 0, 0, 0, 0, 0}}})
	if !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("Upsert on a closed pool: %v, want ErrUnavailable", err)
	}
}

// A user big enough for the planner to walk the HNSW graph: the hits are the
// user's own, of the asked kind, as many as asked, and nearly the exact answer.
func TestHNSWPath_Postgres_usesTheGraph(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	const dim, perUser = 32, 3000
	ix, err := Open(ctx, db, Options{Model: "graph", Dimension: dim, ExactThreshold: 100})
	if err != nil {
		t.Fatal(err)
	}
	exact, err := Open(ctx, db, Options{Model: "graph", Dimension: dim, ExactThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	var batch []ports.VectorRecord
	for i := range 2 * perUser {
		user, kind := "a", memory.KindMessage
		if i%2 == 1 {
			user = "b"
		}
		if i%5 == 0 {
			kind = memory.KindMemory
		}
		batch = append(batch, ports.VectorRecord{ID: fmt.Sprintf("%s-%05d", user, i), Tenant: "t", User: user, Kind: kind,
			At: time.Unix(int64(i), 0), Vector: randomVector(rng, dim, 1)})
		if len(batch) == 1000 {
			if err := ix.Upsert(ctx, batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if _, err := db.ExecContext(ctx, "ANALYZE "+ix.Table()); err != nil {
		t.Fatal(err)
	}
	q := ports.VectorQuery{Tenant: "t", User: "a", Kinds: []memory.Kind{memory.KindMessage}, Limit: 20}
	if plan := explain(t, ix, ports.VectorQuery{Tenant: "t", User: "a", Vector: randomVector(rng, dim, 1), Limit: 20}); !strings.Contains(plan, "hnsw_idx") {
		t.Fatalf("the HNSW path did not use the graph: %s", plan)
	}
	recall := 0.0
	const queries = 20
	for range queries {
		q.Vector = randomVector(rng, dim, 1)
		got, err := ix.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		want, err := exact.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != q.Limit {
			t.Fatalf("%d hits, want %d", len(got), q.Limit)
		}
		wantIDs := map[string]bool{}
		for _, h := range want {
			wantIDs[h.ID] = true
		}
		for i, h := range got {
			if !strings.HasPrefix(h.ID, "a-") || h.Kind != memory.KindMessage {
				t.Fatalf("hit %+v is not one of user a's messages", h)
			}
			if i > 0 && h.Score > got[i-1].Score {
				t.Fatalf("hits out of order: %+v", got)
			}
			if wantIDs[h.ID] {
				recall++
			}
		}
	}
	if r := recall / (queries * float64(q.Limit)); r < 0.9 {
		t.Fatalf("recall@20 %.3f against the exact answer, want at least 0.9", r)
	}
}

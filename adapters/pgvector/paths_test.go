package pgvector

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"engram/domain/memory"
	"engram/ports"
)

// BenchmarkSearchPaths measures the exact and the HNSW path for one user holding n
// vectors among as many of other users', at several n: latency percentiles and
// the HNSW path's recall@10 against the exact answer. It needs the test server
// (ENGRAM_TEST_POSTGRES_DSN) and prints the table docs/BENCHMARKS.md quotes.
//
//	go test ./adapters/pgvector -run '^$' -bench SearchPaths -benchtime 1x -v -timeout 30m
//
// ENGRAM_BENCH_PGVECTOR_SIZES overrides the sizes (default 1000,10000,50000),
// ENGRAM_BENCH_PGVECTOR_OTHERS the other users' vectors per vector of the user
// (default 1) and ENGRAM_BENCH_PGVECTOR_EF the hnsw.ef_search values the HNSW path
// is measured with (default DefaultEfSearch alone).
func BenchmarkSearchPaths(b *testing.B) {
	for range b.N {
		measureSearchPaths(b)
	}
}

func measureSearchPaths(t testing.TB) {
	db := openDB(t)
	ctx := context.Background()
	const dim, queries, k = 512, 100, 10
	sizes := []int{1000, 10000, 50000}
	if s := os.Getenv("ENGRAM_BENCH_PGVECTOR_SIZES"); s != "" {
		sizes = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatal(err)
			}
			sizes = append(sizes, n)
		}
	}
	others := 1 // other users' vectors per vector of the big user
	if s := os.Getenv("ENGRAM_BENCH_PGVECTOR_OTHERS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		others = n
	}
	efs := []int{DefaultEfSearch}
	if s := os.Getenv("ENGRAM_BENCH_PGVECTOR_EF"); s != "" {
		efs = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatal(err)
			}
			efs = append(efs, n)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	centers := make([][]float32, 50)
	for i := range centers {
		centers[i] = randomVector(rng, dim, 1)
	}
	point := func() []float32 {
		c := centers[rng.IntN(len(centers))]
		v := randomVector(rng, dim, 0.6)
		for i := range v {
			v[i] += c[i]
		}
		return v
	}

	t.Logf("| vectors of the user | others | path | p50 | p95 | recall@10 | load |")
	t.Logf("|---:|---:|---|---:|---:|---:|---:|")
	for _, n := range sizes {
		model := fmt.Sprintf("bench-%d-%d", n, others)
		exact, err := Open(ctx, db, Options{Model: model, Dimension: dim, ExactThreshold: -1})
		if err != nil {
			t.Fatal(err)
		}
		graphs := make([]*Index, len(efs))
		for i, ef := range efs {
			if graphs[i], err = Open(ctx, db, Options{Model: model, Dimension: dim, ExactThreshold: 1, EfSearch: ef}); err != nil {
				t.Fatal(err)
			}
		}
		start := time.Now()
		var batch []ports.VectorRecord
		flush := func() {
			if err := exact.Upsert(ctx, batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
		for i := range (others + 1) * n {
			user := "big"
			if i%(others+1) != 0 {
				user = fmt.Sprintf("other-%d", i%40)
			}
			batch = append(batch, ports.VectorRecord{ID: fmt.Sprintf("v%07d", i), Tenant: "t", User: user,
				Kind: memory.KindMessage, At: time.Unix(int64(i), 0), Vector: point()})
			if len(batch) == 1000 {
				flush()
			}
		}
		if len(batch) > 0 {
			flush()
		}
		load := time.Since(start)
		if _, err := db.ExecContext(ctx, "ANALYZE "+exact.Table()); err != nil {
			t.Fatal(err)
		}

		var exactTimes []time.Duration
		hnswTimes := make([][]time.Duration, len(efs))
		recall := make([]float64, len(efs))
		for range queries {
			q := ports.VectorQuery{Tenant: "t", User: "big", Vector: point(), Limit: k}
			s := time.Now()
			want, err := exact.Search(ctx, q)
			exactTimes = append(exactTimes, time.Since(s))
			if err != nil {
				t.Fatal(err)
			}
			ids := map[string]bool{}
			for _, h := range want {
				ids[h.ID] = true
			}
			for i, hnsw := range graphs {
				s = time.Now()
				got, err := hnsw.Search(ctx, q)
				hnswTimes[i] = append(hnswTimes[i], time.Since(s))
				if err != nil {
					t.Fatal(err)
				}
				hit := 0
				for _, h := range got {
					if ids[h.ID] {
						hit++
					}
				}
				recall[i] += float64(hit) / float64(len(want))
			}
		}
		t.Logf("plan of the HNSW path at %d: %s", n, explain(t, graphs[0], ports.VectorQuery{Tenant: "t", User: "big", Vector: point(), Limit: k}))
		t.Logf("| %d | %d | exact | %s | %s | 1.000 | %s |", n, others*n, pct(exactTimes, 50), pct(exactTimes, 95), load.Round(time.Second))
		for i, ef := range efs {
			t.Logf("| %d | %d | HNSW, iterative scan, ef_search %d | %s | %s | %.3f | |", n, others*n, ef, pct(hnswTimes[i], 50), pct(hnswTimes[i], 95), recall[i]/queries)
		}
	}
}

// explain says which index the HNSW path's query used.
func explain(t testing.TB, ix *Index, q ports.VectorQuery) string {
	t.Helper()
	ctx := context.Background()
	query, args := ix.searchSQL(q, false)
	var lines []string
	err := ix.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := ix.hnswSettings(ctx, tx, q.Limit); err != nil {
			return err
		}
		return tx.NewRaw("EXPLAIN "+query, args...).Scan(ctx, &lines)
	})
	if err != nil {
		t.Fatal(err)
	}
	var scans []string
	for _, l := range lines {
		if strings.Contains(l, "Scan") {
			scans = append(scans, strings.TrimSpace(strings.TrimLeft(l, " ->")))
		}
	}
	return strings.Join(scans, "; ")
}

func randomVector(rng *rand.Rand, dim int, scale float64) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(rng.NormFloat64() * scale / math.Sqrt(float64(dim)))
	}
	return v
}

func pct(ds []time.Duration, p int) string {
	s := slices.Clone(ds)
	slices.Sort(s)
	d := s[min(len(s)-1, len(s)*p/100)]
	return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
}

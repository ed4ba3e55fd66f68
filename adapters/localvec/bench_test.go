package localvec_test

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"engram/adapters/localvec"
	"engram/domain/memory"
	"engram/ports"
)

// The benchmarks compare the exact scan with the int8 prefilter and with HNSW for
// one user holding n vectors of the local embedder's dimension. Run them with
//
//	go test -run '^$' -bench 'Search/n=100000/(exact|int8)' -benchtime 200x ./adapters/localvec
//
// (the HNSW rows take minutes to build at 100,000).
// Each reports, besides ns/op, the p50 and p95 latency, recall@10 against the exact
// answer, and the heap the index holds. The data are clustered (50 centres, heavy
// noise), a harder case for graphs than real embeddings, which lie on fewer
// dimensions; see BENCHMARKS.md in this directory for the figures and the decision.

const (
	benchDim     = 512
	benchK       = 10
	benchQueries = 200
)

type benchFixture struct {
	records []ports.VectorRecord
	queries [][]float32
	truth   [][]string // exact top-k ids per query
}

var (
	benchFixturesMu sync.Mutex
	benchFixtures   = map[int]*benchFixture{}
)

func fixture(b *testing.B, n int) *benchFixture {
	benchFixturesMu.Lock()
	defer benchFixturesMu.Unlock()
	if f := benchFixtures[n]; f != nil {
		return f
	}
	rng := rand.New(rand.NewSource(42))
	centres := make([][]float32, 50)
	for i := range centres {
		centres[i] = randomVector(rng, benchDim)
	}
	point := func() []float32 {
		c := centres[rng.Intn(len(centres))]
		v := make([]float32, benchDim)
		for j := range v {
			v[j] = c[j] + 0.6*float32(rng.NormFloat64())
		}
		return v
	}
	f := &benchFixture{records: make([]ports.VectorRecord, n)}
	for i := range f.records {
		f.records[i] = ports.VectorRecord{
			ID: fmt.Sprintf("m%07d", i), Tenant: "t", User: "u", Kind: memory.KindMessage,
			MemoryType: []string{"fact", "preference", "goal"}[i%3], At: time.UnixMilli(int64(i)), Vector: point(),
		}
	}
	for range benchQueries {
		f.queries = append(f.queries, point())
	}
	exact := buildBenchIndex(b, f, "exact")
	for _, q := range f.queries {
		hits, err := exact.Search(context.Background(), benchQuery(q))
		if err != nil {
			b.Fatal(err)
		}
		ids := make([]string, len(hits))
		for i, h := range hits {
			ids[i] = h.ID
		}
		f.truth = append(f.truth, ids)
	}
	benchFixtures[n] = f
	return f
}

func benchQuery(v []float32) ports.VectorQuery {
	return ports.VectorQuery{Tenant: "t", User: "u", Vector: v, Limit: benchK}
}

// benchOptions are the index options of a benchmark mode: "exact…" scans every
// vector, "int8…" uses the prefilter at every size, "hnsw" a graph at every size.
func benchOptions(mode string) localvec.Options {
	opts := localvec.Options{Dimension: benchDim, Prefilter: localvec.PrefilterOptions{Threshold: -1}}
	switch {
	case strings.HasPrefix(mode, "int8"):
		opts.Prefilter.Threshold = 1
	case mode == "hnsw":
		opts.HNSW.Threshold = 1
	}
	return opts
}

func buildBenchIndex(b *testing.B, f *benchFixture, mode string) *localvec.Index {
	ix, err := localvec.New(benchOptions(mode))
	if err != nil {
		b.Fatal(err)
	}
	if err := ix.Load(f.records); err != nil {
		b.Fatal(err)
	}
	return ix
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		for _, mode := range []string{"exact", "int8", "hnsw", "exact-filtered", "int8-filtered"} {
			b.Run(fmt.Sprintf("n=%d/%s", n, mode), func(b *testing.B) {
				f := fixture(b, n)
				before := heapInUse()
				start := time.Now()
				ix := buildBenchIndex(b, f, mode)
				build := time.Since(start)
				held := heapInUse() - before

				latencies := make([]time.Duration, 0, b.N)
				var found, wanted int
				b.ResetTimer()
				for i := range b.N {
					qi := i % len(f.queries)
					q := benchQuery(f.queries[qi])
					filtered := strings.HasSuffix(mode, "-filtered")
					if filtered {
						q.MemoryTypes = []string{"fact", "goal"} // two thirds of the records pass
					}
					t0 := time.Now()
					hits, err := ix.Search(context.Background(), q)
					latencies = append(latencies, time.Since(t0))
					if err != nil {
						b.Fatal(err)
					}
					if !filtered {
						found += overlap(hits, f.truth[qi])
						wanted += len(f.truth[qi])
					}
				}
				b.StopTimer()
				sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
				b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds()), "p50-µs")
				b.ReportMetric(float64(latencies[int(math.Ceil(0.95*float64(len(latencies))))-1].Microseconds()), "p95-µs")
				if wanted > 0 {
					b.ReportMetric(float64(found)/float64(wanted), "recall@10")
				}
				b.ReportMetric(float64(held)/(1<<20), "heap-MB")
				b.ReportMetric(build.Seconds(), "build-s")
				runtime.KeepAlive(ix)
			})
		}
	}
}

func overlap(hits []ports.VectorHit, truth []string) int {
	want := make(map[string]bool, len(truth))
	for _, id := range truth {
		want[id] = true
	}
	n := 0
	for _, h := range hits {
		if want[h.ID] {
			n++
		}
	}
	return n
}

package localvec_test

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"sort"
	"testing"
	"time"

	"engram/adapters/localvec"
	"engram/domain/memory"
	"engram/ports"
)

// A partition big enough to be scanned by several goroutines returns exactly the
// best k of a brute-force scan, filters included.
func TestSearch_parallelScanOfALargePartitionIsExact(t *testing.T) {
	t.Parallel()
	const n, dim, k = 40_000, 8, 25
	rng := rand.New(rand.NewSource(7))
	ix, err := localvec.New(localvec.Options{Dimension: dim, Prefilter: localvec.PrefilterOptions{Threshold: -1}})
	if err != nil {
		t.Fatal(err)
	}
	vecs := make([][]float32, n)
	records := make([]ports.VectorRecord, n)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range records {
		v := make([]float32, dim)
		var norm float64
		for j := range v {
			v[j] = float32(rng.NormFloat64())
			norm += float64(v[j]) * float64(v[j])
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(norm))
		}
		vecs[i] = v
		records[i] = ports.VectorRecord{ID: fmt.Sprintf("m%05d", i), Tenant: "t", User: "u", Kind: memory.KindMemory,
			MemoryType: []string{"fact", "goal"}[i%2], At: base.Add(time.Duration(i) * time.Minute), Vector: v}
	}
	if err := ix.Load(records); err != nil {
		t.Fatal(err)
	}
	for _, types := range [][]string{nil, {"goal"}} {
		q := vecs[123]
		hits, err := ix.Search(context.Background(), ports.VectorQuery{Tenant: "t", User: "u", Vector: q, Limit: k, MemoryTypes: types})
		if err != nil {
			t.Fatal(err)
		}
		type scored struct {
			id    string
			score float64
		}
		var all []scored
		for i, v := range vecs {
			if types != nil && records[i].MemoryType != types[0] {
				continue
			}
			var dot float64
			for j := range v {
				dot += float64(v[j]) * float64(q[j])
			}
			all = append(all, scored{records[i].ID, dot})
		}
		sort.Slice(all, func(i, j int) bool { return all[i].score > all[j].score })
		if len(hits) != k {
			t.Fatalf("types %v: %d hits, want %d", types, len(hits), k)
		}
		for i, h := range hits {
			if h.ID != all[i].id && math.Abs(h.Score-all[i].score) > 1e-5 {
				t.Errorf("types %v: hit %d is %s (%.6f), brute force says %s (%.6f)", types, i, h.ID, h.Score, all[i].id, all[i].score)
			}
		}
	}
}

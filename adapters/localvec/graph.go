package localvec

import (
	"math/rand"

	"github.com/coder/hnsw"
	"github.com/viterin/vek/vek32"
)

// graphIndex is an HNSW graph over a snapshot of a partition's records. Records
// written after the snapshot live in delta and are scanned exactly; records removed
// after it stay in the graph as dead nodes until the next rebuild. The graph itself
// is never mutated after it is built: coder/hnsw v0.6.1's Delete can leave dangling
// neighbours behind (coder/hnsw#13), so stale graphs are replaced, not patched.
type graphIndex struct {
	g      *hnsw.Graph[uint64]
	slotOf map[uint64]int32   // seq of a graph node whose record is live → its slot
	delta  map[int32]struct{} // slots of live records that are not in the graph
	dead   int                // graph nodes whose record was removed or replaced
}

func (gi *graphIndex) added(slot int32) { gi.delta[slot] = struct{}{} }

func (gi *graphIndex) removed(slot int32, seq uint64) {
	if _, ok := gi.slotOf[seq]; ok {
		delete(gi.slotOf, seq)
		gi.dead++
		return
	}
	delete(gi.delta, slot)
}

// stale reports whether enough has changed since the build that a new graph pays off.
func (gi *graphIndex) stale(fraction float64) bool {
	return float64(gi.dead+len(gi.delta)) > fraction*float64(max(1, len(gi.slotOf)))
}

// search offers the graph's approximate neighbours and every delta record to top.
// Asking the graph for dead extra nodes only compensates for this user's own
// removed records; it never widens the search beyond the partition.
func (gi *graphIndex) search(p *partition, q []float32, top *topK, ef int) {
	for _, node := range gi.g.Search(q, max(ef, top.k)+gi.dead) {
		if slot, ok := gi.slotOf[node.Key]; ok {
			p.offer(top, &p.records[slot], q)
		}
	}
	for slot := range gi.delta {
		p.offer(top, &p.records[slot], q)
	}
}

// dotDistance is cosine distance for normalised vectors.
func dotDistance(a, b []float32) float32 { return 1 - vek32.Dot(a, b) }

func buildGraph(nodes []hnsw.Node[uint64], opts HNSWOptions) *hnsw.Graph[uint64] {
	g := hnsw.NewGraph[uint64]()
	g.M = opts.M
	g.EfSearch = opts.EfConstruction // coder/hnsw uses EfSearch while inserting too
	g.Distance = dotDistance
	g.Rng = rand.New(rand.NewSource(1)) // reproducible graphs, reproducible benchmarks
	for _, n := range nodes {
		g.Add(n)
	}
	return g
}

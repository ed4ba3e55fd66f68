package lexical

import (
	"container/heap"
	"sort"
)

// hitRef is a scored document while the best are picked: its slot, the sum of
// its evidence before the division by the query's mass, and its id.
type hitRef struct {
	slot int32
	sum  float64
	id   string
}

// betterHit orders results: more evidence first, then smaller id (ids are ULIDs,
// so the earlier document wins a tie, as ranking.Index's insertion order does).
func betterHit(a, b hitRef) bool {
	if a.sum != b.sum {
		return a.sum > b.sum
	}
	return a.id < b.id
}

// topHits keeps the best k results offered (all when k ≤ 0) without sorting
// everything: a search matching 80,000 memories keeps a heap of k.
type topHits struct {
	k     int
	items hitHeap
}

func newTopHits(k int) *topHits { return &topHits{k: k} }

func (t *topHits) offer(h hitRef) {
	if t.k <= 0 || len(t.items) < t.k {
		heap.Push(&t.items, h)
		return
	}
	if betterHit(h, t.items[0]) {
		t.items[0] = h
		heap.Fix(&t.items, 0)
	}
}

func (t *topHits) sorted() []hitRef {
	out := []hitRef(t.items)
	sort.Slice(out, func(i, j int) bool { return betterHit(out[i], out[j]) })
	return out
}

// hitHeap is a min-heap: the worst kept result on top.
type hitHeap []hitRef

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return betterHit(h[j], h[i]) }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(hitRef)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

package lexical

import (
	"container/heap"
	"sort"

	"engram/ports"
)

// betterHit orders results: more evidence first, then smaller id (ids are ULIDs,
// so the earlier document wins a tie, as ranking.Index's insertion order does).
func betterHit(a, b ports.LexicalHit) bool {
	if ta, tb := a.Evidence.Total(), b.Evidence.Total(); ta != tb {
		return ta > tb
	}
	return a.ID < b.ID
}

// topHits keeps the best k results offered (all when k ≤ 0) without sorting
// everything: a search matching 80,000 memories keeps a heap of k.
type topHits struct {
	k     int
	items hitHeap
}

func newTopHits(k int) *topHits { return &topHits{k: k} }

func (t *topHits) offer(h ports.LexicalHit) {
	if t.k <= 0 || len(t.items) < t.k {
		heap.Push(&t.items, h)
		return
	}
	if betterHit(h, t.items[0]) {
		t.items[0] = h
		heap.Fix(&t.items, 0)
	}
}

func (t *topHits) sorted() []ports.LexicalHit {
	out := []ports.LexicalHit(t.items)
	sort.Slice(out, func(i, j int) bool { return betterHit(out[i], out[j]) })
	return out
}

// hitHeap is a min-heap: the worst kept result on top.
type hitHeap []ports.LexicalHit

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return betterHit(h[j], h[i]) }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(ports.LexicalHit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

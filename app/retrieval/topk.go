package retrieval

import (
	"container/heap"
	"sort"

	"engram/domain/ranking"
)

// betterScored orders results: higher score first, then smaller id (ids are ULIDs,
// so the earlier document wins a tie, as ranking.Index's insertion order does).
func betterScored(a, b ranking.Scored) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.ID < b.ID
}

func sortScored(items []ranking.Scored) {
	sort.Slice(items, func(i, j int) bool { return betterScored(items[i], items[j]) })
}

// topScored keeps the best k results offered (all when k ≤ 0) without sorting
// everything: a search matching 80,000 memories keeps a heap of k.
type topScored struct {
	k     int
	items scoredHeap
}

func newTopScored(k int) *topScored { return &topScored{k: k} }

func (t *topScored) offer(s ranking.Scored) {
	if t.k <= 0 || len(t.items) < t.k {
		heap.Push(&t.items, s)
		return
	}
	if betterScored(s, t.items[0]) {
		t.items[0] = s
		heap.Fix(&t.items, 0)
	}
}

func (t *topScored) sorted() []ranking.Scored {
	out := []ranking.Scored(t.items)
	sortScored(out)
	return out
}

// scoredHeap is a min-heap: the worst kept result on top.
type scoredHeap []ranking.Scored

func (h scoredHeap) Len() int           { return len(h) }
func (h scoredHeap) Less(i, j int) bool { return betterScored(h[j], h[i]) }
func (h scoredHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *scoredHeap) Push(x any)        { *h = append(*h, x.(ranking.Scored)) }
func (h *scoredHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

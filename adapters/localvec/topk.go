package localvec

import (
	"sort"

	"engram/ports"
)

// topK keeps the k best hits seen so far in a min-heap on score, so a full scan costs
// O(n log k) and allocates only k entries.
type topK struct {
	k    int
	hits []ports.VectorHit
}

func newTopK(k int) *topK {
	return &topK{k: k, hits: make([]ports.VectorHit, 0, min(k, 1024))}
}

// better orders hits: higher score first, then the smaller id, so equal scores
// come back in a stable order.
func better(a, b ports.VectorHit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.ID < b.ID
}

// wants reports whether a hit with this score could enter the set; it lets the scan
// skip building a hit that would be thrown away at once.
func (t *topK) wants(score float64) bool {
	return len(t.hits) < t.k || score >= t.hits[0].Score
}

func (t *topK) push(h ports.VectorHit) {
	if len(t.hits) < t.k {
		t.hits = append(t.hits, h)
		t.up(len(t.hits) - 1)
		return
	}
	if !better(h, t.hits[0]) {
		return
	}
	t.hits[0] = h
	t.down(0)
}

// sorted returns the kept hits, best first.
func (t *topK) sorted() []ports.VectorHit {
	out := t.hits
	sort.Slice(out, func(i, j int) bool { return better(out[i], out[j]) })
	return out
}

// The heap's root is the worst kept hit.
func (t *topK) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !better(t.hits[parent], t.hits[i]) {
			break
		}
		t.hits[parent], t.hits[i] = t.hits[i], t.hits[parent]
		i = parent
	}
}

func (t *topK) down(i int) {
	n := len(t.hits)
	for {
		worst, l, r := i, 2*i+1, 2*i+2
		if l < n && better(t.hits[worst], t.hits[l]) {
			worst = l
		}
		if r < n && better(t.hits[worst], t.hits[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		t.hits[i], t.hits[worst] = t.hits[worst], t.hits[i]
		i = worst
	}
}

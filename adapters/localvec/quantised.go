package localvec

import (
	"math"
	"runtime"
	"sync"
)

// A quantised copy of each vector picks the candidates of a big partition before
// the exact score: every component as an int8 with one float32 scale per vector
// (the largest component maps to ±127). An int8 dot product reads a quarter of the
// bytes of a float32 one and, with AVX2, takes about a tenth of its time; its error
// on a cosine is around 1e-3, so the best few hundred by int8 hold the exact best k,
// which are then scored with the float32 vectors.

// dotInt8 is the int8 dot product; dot_amd64.go swaps in an AVX2 version, and
// fastInt8 says whether one is in use (without it the quantised scan is slower than
// the exact one and stays off by default).
var (
	dotInt8  = dotInt8Go
	fastInt8 = false
)

// HasInt8Kernel reports whether this CPU has the int8 kernel (AVX2) that makes the
// prefilter faster than the exact scan.
func HasInt8Kernel() bool { return fastInt8 }

func dotInt8Go(a, b []int8) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += int32(a[i]) * int32(b[i])
		s1 += int32(a[i+1]) * int32(b[i+1])
		s2 += int32(a[i+2]) * int32(b[i+2])
		s3 += int32(a[i+3]) * int32(b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += int32(a[i]) * int32(b[i])
	}
	return s0 + s1 + s2 + s3
}

// quantisedStride is the length of one quantised vector: dim rounded up to 16 so
// the AVX2 kernel needs no tail.
func quantisedStride(dim int) int { return (dim + 15) / 16 * 16 }

// quantise writes v as int8 into out (zero-padded) and returns the scale that
// turns out back into v.
func quantise(v []float32, out []int8) float32 {
	var peak float32
	for _, x := range v {
		peak = max(peak, float32(math.Abs(float64(x))))
	}
	clear(out)
	if peak == 0 {
		return 0
	}
	inv := 127 / peak
	for i, x := range v {
		out[i] = int8(max(-127, min(127, math.Round(float64(x*inv)))))
	}
	return peak / 127
}

// candidate is a slot with its quantised score.
type candidate struct {
	score float32
	slot  int32
}

// candidateHeap keeps the n best candidates seen, in a min-heap on score.
type candidateHeap struct {
	n    int
	heap []candidate
}

func (h *candidateHeap) offer(c candidate) {
	if len(h.heap) < h.n {
		h.heap = append(h.heap, c)
		for i := len(h.heap) - 1; i > 0; {
			parent := (i - 1) / 2
			if h.heap[parent].score <= h.heap[i].score {
				break
			}
			h.heap[parent], h.heap[i] = h.heap[i], h.heap[parent]
			i = parent
		}
		return
	}
	if c.score <= h.heap[0].score {
		return
	}
	h.heap[0] = c
	for i, n := 0, len(h.heap); ; {
		least, l, r := i, 2*i+1, 2*i+2
		if l < n && h.heap[l].score < h.heap[least].score {
			least = l
		}
		if r < n && h.heap[r].score < h.heap[least].score {
			least = r
		}
		if least == i {
			return
		}
		h.heap[i], h.heap[least] = h.heap[least], h.heap[i]
		i = least
	}
}

// quantisedSearch adds p's best matches for q to top: the records that pass f are
// ranked by their int8 copies, and the best `candidates` of them are scored
// exactly. Callers hold p.mu for reading.
func (p *partition) quantisedSearch(q []float32, f filter, top *topK, candidates int) {
	query := make([]int8, p.stride)
	quantise(q, query)
	workers := max(1, min(runtime.GOMAXPROCS(0), len(p.records)/parallelScanMin))
	heaps := make([]candidateHeap, workers)
	chunk := (len(p.records) + workers - 1) / workers
	var wg sync.WaitGroup
	for w := range workers {
		heaps[w] = candidateHeap{n: candidates, heap: make([]candidate, 0, candidates)}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.quantisedScan(query, f, &heaps[w], w*chunk, min((w+1)*chunk, len(p.records)))
		}()
	}
	wg.Wait()
	// Every worker's best candidates are scored: their union holds the best
	// `candidates` overall, and an exact score costs little next to the scan.
	for _, h := range heaps {
		for _, c := range h.heap {
			p.offer(top, &p.records[c.slot], q)
		}
	}
}

func (p *partition) quantisedScan(query []int8, f filter, h *candidateHeap, from, to int) {
	restricted := f.restricts()
	stride := p.stride
	for i := from; i < to; i++ {
		r := &p.records[i]
		if !r.live || (restricted && !f.match(r)) {
			continue
		}
		score := float32(dotInt8(query, p.quantised[i*stride:(i+1)*stride])) * p.scales[i]
		h.offer(candidate{score: score, slot: int32(i)})
	}
}

package ranking

import "math"

// List is one retriever's ranked results and the weight fusion gives them.
type List struct {
	Items  []Scored // best first
	Weight float64
}

// DefaultRRFK is the k of Cormack et al. (2009): large enough that the first few
// ranks of one list do not drown the agreement of the others.
const DefaultRRFK = 60

// FuseRRF is weighted reciprocal-rank fusion: a result scores Σ weight/(k + rank)
// over the lists it appears in, ranks counted from 1. It needs no comparable scores,
// so it fuses BM25 with cosine similarity safely. Ties keep first appearance.
func FuseRRF(k float64, lists ...List) []Scored {
	return fuse(lists, func(l List) []float64 {
		contrib := make([]float64, len(l.Items))
		for rank := range l.Items {
			contrib[rank] = l.Weight / (k + float64(rank+1))
		}
		return contrib
	})
}

// FuseMinMax is normalised score fusion (CombSUM): each list's scores are mapped to
// [0, 1] by its own minimum and maximum, then summed with the lists' weights. A list
// whose scores are all equal gives each of its items the full weight. It keeps more
// of the score gaps than RRF, at the price of trusting each list's score scale.
func FuseMinMax(lists ...List) []Scored {
	return fuse(lists, func(l List) []float64 {
		contrib := make([]float64, len(l.Items))
		if len(l.Items) == 0 {
			return contrib
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, it := range l.Items {
			lo = math.Min(lo, it.Score)
			hi = math.Max(hi, it.Score)
		}
		for i, it := range l.Items {
			norm := 1.0
			if hi > lo {
				norm = (it.Score - lo) / (hi - lo)
			}
			contrib[i] = l.Weight * norm
		}
		return contrib
	})
}

func fuse(lists []List, contributions func(List) []float64) []Scored {
	index := make(map[string]int)
	var out []Scored
	for _, l := range lists {
		for i, c := range contributions(l) {
			id := l.Items[i].ID
			j, ok := index[id]
			if !ok {
				j = len(out)
				index[id] = j
				out = append(out, Scored{ID: id})
			}
			out[j].Score += c
		}
	}
	SortScored(out)
	return out
}

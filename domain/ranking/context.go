package ranking

import "math"

// ContextFields returns the fields to index for message i of a sequence (the
// messages of one conversation, in order): its own terms at weight 1 and the terms
// of up to window messages on each side at weight neighbourWeight, marked Context. A message's
// meaning often lives partly in its neighbours ("Yes, twice last year!" answers the
// question before it), and this lets lexical search find it by them, while its own
// words still count most.
func ContextFields(terms [][]string, i, window int, neighbourWeight float64) []Field {
	fields := []Field{{Terms: terms[i], Weight: 1}}
	if window <= 0 || neighbourWeight <= 0 {
		return fields
	}
	for j := max(0, i-window); j <= min(len(terms)-1, i+window); j++ {
		if j != i {
			fields = append(fields, Field{Terms: terms[j], Weight: neighbourWeight, Context: true})
		}
	}
	return fields
}

// ContextVectors is ContextFields for embeddings: vector i becomes the normalised
// sum of itself and neighbourWeight times each of up to window neighbours on each
// side. Inputs are not changed; the results are new, L2-normalised vectors.
func ContextVectors(vectors [][]float32, window int, neighbourWeight float64) [][]float32 {
	out := make([][]float32, len(vectors))
	for i, v := range vectors {
		acc := make([]float64, len(v))
		for d, x := range v {
			acc[d] = float64(x)
		}
		if window > 0 && neighbourWeight > 0 {
			for j := max(0, i-window); j <= min(len(vectors)-1, i+window); j++ {
				if j == i {
					continue
				}
				for d, x := range vectors[j] {
					acc[d] += neighbourWeight * float64(x)
				}
			}
		}
		norm := 0.0
		for _, x := range acc {
			norm += x * x
		}
		res := make([]float32, len(v))
		if norm > 0 {
			inv := 1 / math.Sqrt(norm)
			for d, x := range acc {
				res[d] = float32(x * inv)
			}
		}
		out[i] = res
	}
	return out
}

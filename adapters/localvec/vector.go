package localvec

import "engram/domain/vector"

// normalized returns v scaled to unit length, so that cosine similarity is a plain
// dot product. A vector with no direction (all zeros) or with NaN/Inf components
// has no meaningful cosine and is refused.
func normalized(field string, v []float32, dim int) ([]float32, error) {
	length, err := vector.Check(field, v, dim)
	if err != nil {
		return nil, err
	}
	inv := 1 / length
	out := make([]float32, dim)
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out, nil
}

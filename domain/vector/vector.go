package vector

import (
	"encoding/binary"
	"fmt"
	"math"

	"engram/domain/invalid"
)

// Check refuses a vector no index can compare: the wrong number of dimensions,
// NaN or infinite values, or no length (all zeros has no direction). It returns
// the vector's length for indexes that normalise.
func Check(field string, v []float32, dim int) (float64, error) {
	if len(v) != dim {
		return 0, invalid.FieldValue(field, len(v), "must have %d dimensions, got %d", dim, len(v))
	}
	var sum float64
	for _, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, invalid.Field(field, "must not contain NaN or infinite values")
		}
		sum += f * f
	}
	if sum == 0 || math.IsInf(sum, 0) {
		return 0, invalid.Field(field, "must have a non-zero, finite length")
	}
	return math.Sqrt(sum), nil
}

// Encode packs v as little-endian IEEE 754 float32 values, 4 bytes each: the
// form stores keep in a BLOB/bytea column. Stored rows depend on this layout;
// it never changes.
func Encode(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
	return out
}

// Decode unpacks what Encode produced.
func Decode(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("decode vector: %d bytes is not a whole number of float32 values", len(b))
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out, nil
}

package localvec

import (
	"encoding/binary"
	"fmt"
	"math"

	"engram/ports"
)

// normalized returns v scaled to unit length, so that cosine similarity is a plain
// dot product. A vector with no direction (all zeros) or with NaN/Inf components
// has no meaningful cosine and is refused.
func normalized(field string, v []float32, dim int) ([]float32, error) {
	length, err := ports.CheckVector(field, v, dim)
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

// EncodeVector packs v as little-endian IEEE 754 float32 values, 4 bytes each: the
// form a Store keeps in a BLOB/bytea column.
func EncodeVector(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
	return out
}

// DecodeVector unpacks what EncodeVector produced.
func DecodeVector(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("localvec: decode vector: %d bytes is not a whole number of float32 values", len(b))
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out, nil
}

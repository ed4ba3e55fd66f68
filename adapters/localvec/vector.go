package localvec

import (
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf8"

	"engram/domain/invalid"
	"engram/ports"
)

// normalized returns v scaled to unit length, so that cosine similarity is a plain
// dot product. A vector with no direction (all zeros) or with NaN/Inf components
// has no meaningful cosine and is refused.
func normalized(field string, v []float32, dim int) ([]float32, error) {
	if len(v) != dim {
		return nil, invalid.FieldValue(field, len(v), "must have %d dimensions, got %d", dim, len(v))
	}
	var sum float64
	for _, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, invalid.Field(field, "must not contain NaN or infinite values")
		}
		sum += f * f
	}
	if sum == 0 || math.IsInf(sum, 0) {
		return nil, invalid.Field(field, "must have a non-zero, finite length")
	}
	inv := 1 / math.Sqrt(sum)
	out := make([]float32, dim)
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out, nil
}

func validateRecord(field string, r ports.VectorRecord) error {
	switch {
	case r.ID == "":
		return invalid.Field(field+".id", "must not be empty")
	case r.Tenant == "":
		return invalid.Field(field+".tenant", "must not be empty")
	case r.User == "":
		return invalid.Field(field+".user", "must not be empty")
	case r.Kind == "":
		return invalid.Field(field+".kind", "must not be empty")
	}
	for name, s := range map[string]string{"id": r.ID, "tenant": r.Tenant, "user": r.User, "kind": string(r.Kind), "memory_type": r.MemoryType, "conversation_id": r.ConversationID} {
		if !utf8.ValidString(s) {
			return invalid.Field(field+"."+name, "must be valid UTF-8")
		}
	}
	return nil
}

func validateQuery(q ports.VectorQuery) error {
	switch {
	case q.Tenant == "":
		return invalid.Field("tenant", "must not be empty: a search is always confined to one tenant")
	case q.User == "":
		return invalid.Field("user", "must not be empty: a search is always confined to one user")
	case q.Limit <= 0:
		return invalid.FieldValue("limit", q.Limit, "must be at least 1, got %d", q.Limit)
	}
	return nil
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

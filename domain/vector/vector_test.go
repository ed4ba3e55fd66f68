package vector_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"engram/domain/vector"
)

func TestCheck_refusesWhatNoIndexCanCompare(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		v       []float32
		dim     int
		wantErr string
		wantLen float64
	}{
		{name: "unit", v: []float32{1, 0, 0}, dim: 3, wantLen: 1},
		{name: "3-4-5", v: []float32{3, 4}, dim: 2, wantLen: 5},
		{name: "wrong dimension", v: []float32{1, 0}, dim: 3, wantErr: "must have 3 dimensions, got 2"},
		{name: "NaN", v: []float32{float32(math.NaN()), 1}, dim: 2, wantErr: "NaN or infinite"},
		{name: "infinite", v: []float32{float32(math.Inf(1)), 1}, dim: 2, wantErr: "NaN or infinite"},
		{name: "all zeros", v: []float32{0, 0}, dim: 2, wantErr: "non-zero, finite length"},
		{name: "length overflows", v: []float32{math.MaxFloat32, math.MaxFloat32}, dim: 2, wantLen: math.Sqrt(2) * math.MaxFloat32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			length, err := vector.Check("vector", tc.v, tc.dim)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Check(%v) = %v, want an error saying %q", tc.v, err, tc.wantErr)
				}
				return
			}
			if err != nil || math.Abs(length-tc.wantLen) > 1e-9*tc.wantLen {
				t.Fatalf("Check(%v) = %v, %v; want %v", tc.v, length, err, tc.wantLen)
			}
		})
	}
}

// The layout is what stored rows hold: it must stay little-endian float32.
func TestEncode_isLittleEndianFloat32AndRoundTrips(t *testing.T) {
	t.Parallel()
	v := []float32{1, -2.5, 0}
	want := []byte{0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x20, 0xc0, 0x00, 0x00, 0x00, 0x00}
	got := vector.Encode(v)
	if !bytes.Equal(got, want) {
		t.Fatalf("Encode(%v) = % x, want % x", v, got, want)
	}
	back, err := vector.Decode(got)
	if err != nil || len(back) != len(v) {
		t.Fatalf("Decode = %v, %v", back, err)
	}
	for i := range v {
		if back[i] != v[i] {
			t.Fatalf("Decode(Encode(%v)) = %v", v, back)
		}
	}
	if empty, err := vector.Decode(nil); err != nil || len(empty) != 0 {
		t.Fatalf("Decode(nil) = %v, %v", empty, err)
	}
}

func TestDecode_refusesAPartialValue(t *testing.T) {
	t.Parallel()
	if _, err := vector.Decode([]byte{1, 2, 3}); err == nil {
		t.Fatal("Decode accepted 3 bytes")
	}
}

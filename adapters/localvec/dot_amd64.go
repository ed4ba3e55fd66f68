package localvec

import "golang.org/x/sys/cpu"

//go:noescape
func dotInt8AVX2(a, b *int8, n int) int32

func init() {
	if cpu.X86.HasAVX2 {
		dotInt8, fastInt8 = dotInt8Vector, true
	}
}

// dotInt8Vector is dotInt8Go with AVX2; len(a) is a multiple of 16 (quantised
// vectors are padded to one).
func dotInt8Vector(a, b []int8) int32 {
	if len(a) == 0 {
		return 0
	}
	b = b[:len(a)]
	return dotInt8AVX2(&a[0], &b[0], len(a))
}

package localvec

// The int8 kernels, for the test that compares them.
var (
	DotInt8   = func(a, b []int8) int32 { return dotInt8(a, b) }
	DotInt8Go = dotInt8Go
)

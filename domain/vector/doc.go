// Package vector holds the rules every vector index and store shares: which
// vectors can be compared at all, and the byte layout a vector is kept in.
package vector

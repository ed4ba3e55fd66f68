// Package lifecycle holds the memory lifecycle's use cases that run in the background:
// consolidation of a user's memories (merge near-duplicates, drop noise and expired
// memories, normalise key variants), requested over the API and run as a job by a
// worker. Every change is an event with channel consolidation, so it can be seen
// and undone like any other. It depends on domain and ports only.
package lifecycle

import (
	"context"

	"engram/domain/memory"
	"engram/ports"
)

// Defaults of Options.
const (
	DefaultMergeSimilarity = 0.90
	DefaultMaxMemories     = 5000
)

// Options bound consolidation.
type Options struct {
	// MergeSimilarity: live memories at least this similar are folded into one
	// (LONG_TERM_MEMORY_MERGE_SIMILARITY).
	MergeSimilarity float64
	// MaxMemories bounds how many memories one run reads (pairs are compared, so
	// the cost grows with the square).
	MaxMemories int
}

// NoiseLister finds a user's memories under noise keys. Listings hide them (noise
// keys are filtered at read time), so consolidation needs its own way to find and
// delete them.
type NoiseLister interface {
	NoiseMemories(ctx context.Context, scope memory.Scope) ([]memory.Memory, error)
}

// Service runs the lifecycle use cases.
type Service struct {
	jobs     ports.JobStore
	memories ports.MemoryStore
	noise    NoiseLister
	clock    ports.Clock
	ids      ports.IDs
	opts     Options
}

// New builds the service.
func New(jobs ports.JobStore, memories ports.MemoryStore, noise NoiseLister, clock ports.Clock, ids ports.IDs, opts Options) *Service {
	if opts.MergeSimilarity <= 0 || opts.MergeSimilarity > 1 {
		opts.MergeSimilarity = DefaultMergeSimilarity
	}
	if opts.MaxMemories <= 0 {
		opts.MaxMemories = DefaultMaxMemories
	}
	return &Service{jobs: jobs, memories: memories, noise: noise, clock: clock, ids: ids, opts: opts}
}

var consolidationSource = memory.Source{Channel: memory.ChannelConsolidation}

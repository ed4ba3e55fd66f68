package retrieval

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"engram/domain/invalid"
	"engram/ports"
)

// QueryEmbedder is what search needs of an embedder: the query's vector.
type QueryEmbedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// VectorSearcher is what search needs of a vector index.
type VectorSearcher interface {
	Search(ctx context.Context, q ports.VectorQuery) ([]ports.VectorHit, error)
}

// Errors of the guarded vector side; both wrap ports.ErrUnavailable.
var (
	// ErrBreakerOpen: the dependency failed recently and is not called until a
	// probe finds it back.
	ErrBreakerOpen = fmt.Errorf("circuit breaker open: %w", ports.ErrUnavailable)
	// ErrVectorTimeout: the call did not answer within the vector deadline.
	ErrVectorTimeout = fmt.Errorf("no answer within the vector deadline: %w", ports.ErrUnavailable)
)

// GuardOptions shape the guard.
type GuardOptions struct {
	// Timeout is ENGRAM_VECTOR_SEARCH_TIMEOUT_MS: each guarded call's deadline;
	// 0: DefaultVectorTimeout.
	Timeout time.Duration
	Breaker BreakerOptions
	Logger  *slog.Logger
}

// VectorGuard is the deadline and the circuit breakers around the vector side of
// search, as decorators of the embedder and the vector index: each call gets the
// deadline and goes through its dependency's breaker, so that a slow or dead
// vector store (or remote embedder) costs a request nothing but its fused half,
// and after a few failures nothing at all.
//
// A breaker counts dependency failures only (dependencyFailure): network errors,
// timeouts and 5xx, which adapters report as ports.ErrUnavailable. A request the
// dependency refuses as unusable (*invalid.Error, a 4xx of a remote embedder) or a
// client that goes away says nothing about the dependency's health and never
// trips it, so no client can switch vectors off for the other tenants. The
// breakers are process-wide because the dependencies are.
type VectorGuard struct {
	timeout  time.Duration
	embedder *breaker
	index    *breaker
}

// NewVectorGuard builds the guard.
func NewVectorGuard(clock ports.Clock, opts GuardOptions) *VectorGuard {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultVectorTimeout
	}
	return &VectorGuard{
		timeout:  opts.Timeout,
		embedder: newBreaker("embedder", clock, opts.Logger, opts.Breaker),
		index:    newBreaker("vector index", clock, opts.Logger, opts.Breaker),
	}
}

// Embedder decorates the embedder that embeds search queries.
func (g *VectorGuard) Embedder(e QueryEmbedder) QueryEmbedder { return guardedEmbedder{e, g} }

// Index decorates the vector index that search asks.
func (g *VectorGuard) Index(ix VectorSearcher) VectorSearcher { return guardedIndex{ix, g} }

// State is the worse of the two breakers' states (metrics): open when either
// dependency is switched off.
func (g *VectorGuard) State() BreakerState {
	e, ix := g.embedder.State(), g.index.State()
	switch {
	case e == BreakerOpen || ix == BreakerOpen:
		return BreakerOpen
	case e == BreakerHalfOpen || ix == BreakerHalfOpen:
		return BreakerHalfOpen
	}
	return BreakerClosed
}

type guardedEmbedder struct {
	next QueryEmbedder
	g    *VectorGuard
}

func (e guardedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return guarded(ctx, e.g.timeout, e.g.embedder, func(ctx context.Context) ([][]float32, error) { return e.next.Embed(ctx, texts) })
}

type guardedIndex struct {
	next VectorSearcher
	g    *VectorGuard
}

func (ix guardedIndex) Search(ctx context.Context, q ports.VectorQuery) ([]ports.VectorHit, error) {
	return guarded(ctx, ix.g.timeout, ix.g.index, func(ctx context.Context) ([]ports.VectorHit, error) { return ix.next.Search(ctx, q) })
}

// guarded runs call through the breaker within the deadline. A call that ignores
// its deadline (a hung connection) is answered without: its goroutine ends when
// the call does.
func guarded[T any](ctx context.Context, timeout time.Duration, b *breaker, call func(context.Context) (T, error)) (T, error) {
	var zero T
	ok, probe := b.allow()
	if !ok {
		return zero, ErrBreakerOpen
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type answer struct {
		v   T
		err error
	}
	done := make(chan answer, 1)
	go func() {
		v, err := call(cctx)
		done <- answer{v, err}
	}()
	var out answer
	select {
	case out = <-done:
	case <-cctx.Done():
		out.err = cctx.Err()
	}
	switch {
	case out.err == nil:
		b.success()
		return out.v, nil
	case ctx.Err() != nil:
		b.release(probe)
		return zero, fmt.Errorf("vector search: %w", ctx.Err())
	case cctx.Err() != nil:
		err := fmt.Errorf("%w (%s): %w", ErrVectorTimeout, timeout, out.err)
		b.failure(err)
		return zero, err
	case dependencyFailure(out.err):
		b.failure(out.err)
		return zero, out.err
	default:
		b.release(probe)
		return zero, out.err
	}
}

// dependencyFailure reports whether err says the dependency cannot answer: a
// network error, a timeout or a 5xx, which adapters wrap as ports.ErrUnavailable.
// A request refused as unusable (*invalid.Error, or an error with Rejected() true:
// a 4xx of a remote embedder) is the request's fault, not the dependency's.
func dependencyFailure(err error) bool {
	var bad *invalid.Error
	if errors.As(err, &bad) {
		return false
	}
	var rejected interface{ Rejected() bool }
	if errors.As(err, &rejected) && rejected.Rejected() {
		return false
	}
	return errors.Is(err, ports.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded)
}

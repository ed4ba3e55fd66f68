package health

import (
	"context"
	"errors"
	"time"

	"engram/domain/candidate"
	"engram/ports"
)

// MinTimedOutBudget: a call that ran out of its caller's deadline counts as a
// failure of the dependency only when the caller gave it at least this long. A
// search that allows the embedder 150 ms says nothing about the embedder's
// health; an indexer batch that allowed it a minute does.
const MinTimedOutBudget = time.Second

// Counts reports whether a call's error says something about the dependency: nil
// (a success) does; a caller that gave up (cancelled, or a short deadline of its
// own) does not.
func Counts(ctx context.Context, started time.Time, err error) bool {
	if err == nil || ctx.Err() == nil {
		return !errors.Is(err, context.Canceled)
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return false
	}
	deadline, ok := ctx.Deadline()
	return ok && deadline.Sub(started) >= MinTimedOutBudget
}

// badOutput is how the LLM adapter marks an answer it could not use: the
// endpoint answered, so it is up.
type badOutput interface{ BadOutput() bool }

func answered(err error) bool {
	var b badOutput
	return errors.As(err, &b) && b.BadOutput()
}

func (r *Recorder) observeCall(ctx context.Context, dep string, started time.Time, err error) {
	if answered(err) {
		err = nil
	}
	if Counts(ctx, started, err) {
		r.Observe(dep, err)
	}
}

// Embedder reports every call of e into r as the "embedder" dependency.
func (r *Recorder) Embedder(e ports.Embedder) ports.Embedder { return &embedder{Embedder: e, r: r} }

type embedder struct {
	ports.Embedder
	r *Recorder
}

func (e *embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	start := time.Now()
	vs, err := e.Embedder.Embed(ctx, texts)
	e.r.observeCall(ctx, Embedder, start, err)
	return vs, err
}

// Extractor reports every call of x into r as the "llm" dependency.
func (r *Recorder) Extractor(x ports.Extractor) ports.Extractor { return &extractor{next: x, r: r} }

type extractor struct {
	next ports.Extractor
	r    *Recorder
}

func (x *extractor) Extract(ctx context.Context, in ports.ExtractionInput) ([]candidate.Candidate, ports.LLMUsage, error) {
	start := time.Now()
	cs, usage, err := x.next.Extract(ctx, in)
	x.r.observeCall(ctx, LLM, start, err)
	return cs, usage, err
}

// Refiner reports every call of f into r as the "llm" dependency.
func (r *Recorder) Refiner(f ports.Refiner) ports.Refiner { return &refiner{next: f, r: r} }

type refiner struct {
	next ports.Refiner
	r    *Recorder
}

func (f *refiner) Refine(ctx context.Context, in ports.RefineInput) ([]candidate.Decision, ports.LLMUsage, error) {
	start := time.Now()
	ds, usage, err := f.next.Refine(ctx, in)
	f.r.observeCall(ctx, LLM, start, err)
	return ds, usage, err
}

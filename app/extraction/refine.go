package extraction

import (
	"context"
	"fmt"
	"slices"
	"time"

	"engram/domain/candidate"
	"engram/domain/memory"
	"engram/ports"
)

// SimilarMemories finds the user's existing memories that candidates should be
// compared with: those with a candidate's key and the most similar to a
// candidate's content. The lexical implementation below serves until vectors do.
type SimilarMemories interface {
	Similar(ctx context.Context, scope memory.Scope, cands []candidate.Candidate, now time.Time) ([]memory.Memory, error)
}

// Defaults of LexicalSimilar.
const (
	DefaultScanLimit    = 500
	DefaultPerCandidate = 5
)

// LexicalSimilar compares candidates with the user's live memories by
// candidate.Similarity. It reads at most ScanLimit memories (the first by key), so
// its cost is bounded for users with very many memories; memories with a
// candidate's key are always found, live or not.
type LexicalSimilar struct {
	Store        ports.MemoryStore
	ScanLimit    int // 0: DefaultScanLimit (at most 1000, a listing page)
	PerCandidate int // most similar memories kept per candidate; 0: DefaultPerCandidate
}

// Similar returns the memories with a candidate's key, then the PerCandidate most
// similar live memories of each candidate (similarity above 0), without repeats.
func (l *LexicalSimilar) Similar(ctx context.Context, scope memory.Scope, cands []candidate.Candidate, now time.Time) ([]memory.Memory, error) {
	scan, per := l.ScanLimit, l.PerCandidate
	if scan <= 0 {
		scan = DefaultScanLimit
	}
	if per <= 0 {
		per = DefaultPerCandidate
	}
	var out []memory.Memory
	seen := map[memory.Key]bool{}
	for _, c := range cands {
		key, err := memory.ParseKey(c.Key)
		if err != nil || seen[key] {
			continue
		}
		m, err := l.Store.Get(ctx, scope, key)
		if err != nil {
			if isNotFound(err) {
				continue
			}
			return nil, err
		}
		seen[key] = true
		out = append(out, m)
	}
	page, err := l.Store.List(ctx, scope, ports.MemoryQuery{Limit: min(scan, 1000), Now: now})
	if err != nil {
		return nil, err
	}
	type scored struct {
		m     memory.Memory
		score float64
	}
	for _, c := range cands {
		var best []scored
		for _, m := range page.Items {
			if s := candidate.Similarity(c.Content, m.Content()); s > 0 {
				best = append(best, scored{m, s})
			}
		}
		slices.SortStableFunc(best, func(a, b scored) int {
			switch {
			case a.score > b.score:
				return -1
			case a.score < b.score:
				return 1
			}
			return 0
		})
		for i := 0; i < len(best) && i < per; i++ {
			if k := best[i].m.Key(); !seen[k] {
				seen[k] = true
				out = append(out, best[i].m)
			}
		}
	}
	return out, nil
}

// refine is stage 2. With no existing memory to compare against, a model call
// adds nothing the deterministic fallback cannot decide, so none is made; when the
// refiner fails, the fallback decides instead of failing the whole run.
func (p *Pipeline) refine(ctx context.Context, scope memory.Scope, cands []candidate.Candidate, existing []memory.Memory, rep *Report) ([]candidate.Decision, error) {
	in := ports.RefineInput{Scope: scope, Candidates: cands, Existing: existing, Now: p.deps.Clock.Now()}
	refiner, fallback := p.deps.Refiner, false
	if len(existing) == 0 && p.deps.FallbackRefiner != nil {
		refiner, fallback = p.deps.FallbackRefiner, true
	}
	decisions, usage, err := refiner.Refine(ctx, in)
	rep.call(StageRefine, usage, err, fallback)
	if err != nil && !fallback && p.deps.FallbackRefiner != nil && ctx.Err() == nil {
		decisions, usage, err = p.deps.FallbackRefiner.Refine(ctx, in)
		rep.call(StageRefine, usage, err, true)
	}
	if err != nil {
		return nil, fmt.Errorf("refine: %w", err)
	}
	// One decision per candidate; a refiner that gives fewer keeps the rest as
	// proposed, so a sloppy answer loses nothing the screen accepted.
	out := make([]candidate.Decision, len(cands))
	for i, c := range cands {
		if i < len(decisions) {
			out[i] = decisions[i]
			continue
		}
		out[i] = candidate.Decision{Candidate: c, Verdict: candidate.VerdictKeep, Reason: "no decision: kept as proposed"}
	}
	return out, nil
}

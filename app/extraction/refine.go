package extraction

import (
	"context"
	"fmt"

	"engram/domain/candidate"
	"engram/domain/memory"
	"engram/ports"
)

// reasonNoCollision is the decision of a candidate that collides with no existing
// memory: there is nothing to adjudicate, so no refine call is made for it.
const reasonNoCollision = "no existing memory has its key or is as alike as the duplicate threshold: kept without a refine call"

// refine is stage 2. Only the candidates that collide with an existing memory
// (candidate.Collisions) go to the refiner, all of them in one call, with the
// memories they were found near; the others are kept as proposed. When the model
// cannot be called (over budget, rate limited) or fails, the deterministic
// fallback decides instead, so a refine outage never costs a retry of the
// extraction.
func (p *Pipeline) refine(ctx context.Context, scope memory.Scope, cands []candidate.Candidate, n candidate.Neighbourhood, rep *Report) ([]candidate.Decision, error) {
	now := p.deps.Clock.Now()
	out := make([]candidate.Decision, len(cands))
	for i, c := range cands {
		out[i] = candidate.Decision{Candidate: c, Verdict: candidate.VerdictKeep, Reason: reasonNoCollision}
	}
	var colliding []int
	for i, yes := range candidate.Collisions(cands, n, p.opts.DuplicateSimilarity, now) {
		if yes {
			colliding = append(colliding, i)
		}
	}
	rep.Colliding = len(colliding)
	if len(colliding) == 0 {
		return out, nil
	}
	in := ports.RefineInput{Scope: scope, Existing: nearMemories(cands, colliding, n), Now: now}
	for _, i := range colliding {
		in.Candidates = append(in.Candidates, cands[i])
	}
	decisions, err := p.refineCall(ctx, in, rep)
	if err != nil {
		return nil, fmt.Errorf("refine: %w", err)
	}
	// One decision per candidate; a refiner that gives fewer keeps the rest as
	// proposed, so a sloppy answer loses nothing the screen accepted.
	for k, i := range colliding {
		if k < len(decisions) {
			out[i] = decisions[k]
			continue
		}
		out[i].Reason = "no decision: kept as proposed"
	}
	return out, nil
}

// refineCall asks the refiner, or the fallback when the model may not or could
// not answer.
func (p *Pipeline) refineCall(ctx context.Context, in ports.RefineInput, rep *Report) ([]candidate.Decision, error) {
	fallback := func(cause error) ([]candidate.Decision, error) {
		if p.deps.FallbackRefiner == nil || ctx.Err() != nil {
			return nil, cause
		}
		decisions, usage, err := p.deps.FallbackRefiner.Refine(ctx, in)
		rep.call(StageRefine, usage, err, true)
		return decisions, err
	}
	if w := p.calls.admit(StageRefine, in.Scope.Tenant, in.Now); w != nil {
		return fallback(w)
	}
	release, err := p.calls.acquire(ctx)
	if err != nil {
		return nil, err
	}
	decisions, usage, err := p.deps.Refiner.Refine(ctx, in)
	release()
	rep.call(StageRefine, usage, err, false)
	if err != nil {
		if w := p.calls.rateLimited(StageRefine, err, p.deps.Clock.Now()); w != nil {
			return fallback(w)
		}
		return fallback(err)
	}
	return decisions, nil
}

// nearMemories are the existing memories stage 2 shows the model: those with a
// colliding candidate's key or found near one.
func nearMemories(cands []candidate.Candidate, colliding []int, n candidate.Neighbourhood) []memory.Memory {
	var out []memory.Memory
	for j, m := range n.Existing {
		for _, i := range colliding {
			key, err := memory.ParseKey(cands[i].Key)
			if err == nil && key == m.Key() || i < len(n.Alike) && j < len(n.Alike[i]) && n.Alike[i][j] > 0 {
				out = append(out, m)
				break
			}
		}
	}
	return out
}

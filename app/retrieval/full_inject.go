package retrieval

import (
	"context"
	"fmt"

	"engram/domain/memory"
	"engram/domain/ranking"
)

// fullInject is every live memory of the user up to the scan limit (the most
// important and most recently changed first), whatever the query: the mode
// full_inject. A query, when given, supplies lexical evidence, so that the
// memories it is about come first with their relevance as score; the others score
// 0 (no evidence) and keep their order. min_score does not apply: the mode's point
// is to inject everything.
func (s *Service) fullInject(ctx context.Context, p plan) (Result, error) {
	ms, err := s.deps.Memories.TopMemories(ctx, p.Scope, p.types, p.now, s.opts.ScanLimit)
	if err != nil {
		return Result{}, fmt.Errorf("read memories: %w", err)
	}
	evidence := map[string]ranking.Evidence{}
	if len(p.terms) > 0 && len(ms) > 0 {
		ids := make([]string, len(ms))
		for i, m := range ms {
			ids[i] = m.ID()
		}
		hits, err := s.deps.Lexical.SearchLexical(ctx, p.Scope, s.lexicalQuery(p, memory.KindMemory, 0, ids))
		if err != nil {
			return Result{}, fmt.Errorf("lexical search: %w", err)
		}
		for _, h := range hits {
			evidence[h.ID] = h.Evidence
		}
	}
	cands := make([]ranking.Candidate, 0, len(ms))
	byID := make(map[string]memory.Memory, len(ms))
	for _, m := range ms {
		switch {
		case !m.IsLive(p.now):
			p.explain.drop(Item{Kind: memory.KindMemory, Memory: &m}, evidence[m.ID()].Total(), deadReason(m, p.now))
			continue
		case !inRange(p, m.UpdatedAt()):
			p.explain.drop(Item{Kind: memory.KindMemory, Memory: &m}, evidence[m.ID()].Total(), DropFiltered)
			continue
		case s.hidesSecrets(p) && m.State().Flags.Has(memory.FlagSecret):
			p.explain.drop(Item{Kind: memory.KindMemory, Memory: &m}, evidence[m.ID()].Total(), DropSecret)
			continue
		}
		byID[m.ID()] = m
		cands = append(cands, s.memoryCandidate(p, m, evidence[m.ID()]))
	}
	ranked := ranking.Rerank(cands, p.now, s.opts.Weights)
	items := make([]Item, 0, min(len(ranked), p.limit))
	for i, r := range ranked {
		m := byID[r.ID]
		it := Item{Kind: memory.KindMemory, Memory: &m, Score: r.Score, Breakdown: r.Breakdown}
		if i >= p.limit {
			if p.explain == nil {
				break
			}
			p.explain.drop(it, r.Score, DropLimit)
			continue
		}
		items = append(items, it)
	}
	return Result{Items: items, ModeUsed: ModeFullInject}, nil
}

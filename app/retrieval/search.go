package retrieval

import "context"

// Search finds the user's memories and messages that best answer the query, each
// with its calibrated score (see the package doc). Expired, inactive and noise-key
// memories are never returned, nor, but in full_inject, anything without evidence
// or below min_score. When the vector side fails, times out, is switched off by a
// breaker or has nothing to embed, dense and auto answer from lexical search with
// ModeUsed lexical and the reason: a search only fails when the truth store does.
func (s *Service) Search(ctx context.Context, q Search) (Result, error) {
	p, err := s.parse(q)
	if err != nil {
		return Result{}, err
	}
	var res Result
	if p.mode == ModeFullInject {
		res, err = s.fullInject(ctx, p)
	} else {
		res, err = s.retrieve(ctx, p)
	}
	if err != nil {
		return Result{}, err
	}
	if p.explain != nil {
		res.Dropped, res.Unread = p.explain.dropped, p.explain.unread
	}
	res.QueryTruncated = p.queryCut
	s.recordAccess(p, res)
	return res, nil
}

// retrieve is the lexical, dense and auto modes: gather, then rank.
func (s *Service) retrieve(ctx context.Context, p plan) (Result, error) {
	g, err := s.gather(ctx, p)
	if err != nil {
		return Result{}, err
	}
	items, err := s.rank(ctx, p, g.cands)
	if err != nil {
		return Result{}, err
	}
	return Result{Items: items, ModeUsed: g.modeUsed, FallbackReason: g.fallback}, nil
}

// recordAccess queues the returned memories' last access; it never blocks.
func (s *Service) recordAccess(p plan, res Result) {
	if s.deps.Access == nil {
		return
	}
	var ids []string
	for _, it := range res.Items {
		if it.Memory != nil {
			ids = append(ids, it.Memory.ID())
		}
	}
	s.deps.Access.Record(p.Scope.Tenant, ids, p.now)
}

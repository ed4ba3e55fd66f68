package retrieval

import (
	"cmp"
	"context"
	"slices"

	"engram/domain/clip"
	"engram/domain/conversation"
	"engram/domain/memory"
)

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
	if p.queryCut && p.mode != ModeFullInject {
		if res, err = s.withAsk(ctx, p, res); err != nil {
			return Result{}, err
		}
	}
	if p.explain != nil {
		res.Dropped, res.Unread = withoutReturned(p.explain.dropped, res.Items), p.explain.unread
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

// AskChars bounds the question searched for on its own in a long query.
const AskChars = 300

// withAsk searches a long query's last sentence on its own too — the question
// after a pasted log, whose words the log would otherwise drown (evidence is a
// share of the whole query) — and merges the two answers: each item once with
// its better score, best first, up to the limit.
func (s *Service) withAsk(ctx context.Context, p plan, res Result) (Result, error) {
	ask := clip.Ask(p.Query, AskChars)
	if ask == p.Query || ask == "" {
		return res, nil
	}
	ap := p
	ap.Query, ap.explain = ask, nil
	s.analyse(&ap)
	more, err := s.retrieve(ctx, ap)
	if err != nil {
		return Result{}, err
	}
	best := map[string]int{}
	for i, it := range res.Items {
		best[itemID(it.Kind, it.Memory, it.Message)] = i
	}
	for _, it := range more.Items {
		id := itemID(it.Kind, it.Memory, it.Message)
		if i, ok := best[id]; !ok {
			best[id] = len(res.Items)
			res.Items = append(res.Items, it)
		} else if it.Score > res.Items[i].Score {
			res.Items[i] = it
		}
	}
	slices.SortStableFunc(res.Items, func(a, b Item) int { return cmpScoreDesc(a.Score, b.Score) })
	res.Items = res.Items[:min(len(res.Items), p.limit)]
	return res, nil
}

// withoutReturned leaves out of dropped what the ask's search returned.
func withoutReturned(dropped []Dropped, items []Item) []Dropped {
	kept := map[string]bool{}
	for _, it := range items {
		kept[itemID(it.Kind, it.Memory, it.Message)] = true
	}
	return slices.DeleteFunc(dropped, func(d Dropped) bool { return kept[itemID(d.Kind, d.Memory, d.Message)] })
}

func itemID(kind memory.Kind, m *memory.Memory, msg *conversation.Message) string {
	switch {
	case m != nil:
		return string(kind) + "/" + m.ID()
	case msg != nil:
		return string(kind) + "/" + msg.ID
	}
	return string(kind)
}

func cmpScoreDesc(a, b float64) int { return cmp.Compare(b, a) }

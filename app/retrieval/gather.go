package retrieval

import (
	"context"
	"fmt"
	"slices"

	"engram/domain/memory"
	"engram/domain/ranking"
	"engram/ports"
)

// candidate is an item a retriever found, with its evidence.
type candidate struct {
	id        string
	kind      memory.Kind
	lexical   ranking.Evidence
	dense     float64 // dense evidence (ranking.DenseScale of the cosine)
	speaker   string  // messages: the analysed speaker term
	relevance ranking.Evidence
}

// gathered is what the retrievers found for a search, the most relevant first.
type gathered struct {
	cands    []candidate
	modeUsed Mode
	fallback string
}

// gather is the hybrid gather of the lexical, dense and auto modes: lexical search
// and the vector side run at once, each Depth deep per kind; their evidence is
// fused per item (ranking.DenseScale.Fuse). When the vector side cannot answer, dense
// and auto answer from lexical search with the reason.
func (s *Service) gather(ctx context.Context, p plan) (gathered, error) {
	out := gathered{modeUsed: p.mode}
	var vectors chan vectorOutcome
	if p.mode != ModeLexical {
		vectors = make(chan vectorOutcome, 1)
		go func() { vectors <- s.vectorSide(ctx, p) }()
	}
	var lexical map[memory.Kind][]ports.LexicalHit
	var err error
	if p.mode != ModeDense {
		if lexical, err = s.lexicalSide(ctx, p); err != nil {
			return gathered{}, err
		}
	}
	var dense map[memory.Kind][]ports.VectorHit
	if vectors != nil {
		v := <-vectors
		if err := ctx.Err(); err != nil {
			return gathered{}, fmt.Errorf("search: %w", err)
		}
		if v.reason != "" {
			out.modeUsed, out.fallback = ModeLexical, v.reason
		} else {
			dense = v.lists
		}
	}
	if lexical == nil && out.modeUsed == ModeLexical {
		if lexical, err = s.lexicalSide(ctx, p); err != nil {
			return gathered{}, err
		}
	}
	cands, err := s.merge(ctx, p, out.modeUsed, lexical, dense)
	if err != nil {
		return gathered{}, err
	}
	out.cands = cands
	return out, nil
}

// depth is how many results each retriever gives per kind.
func (s *Service) depth(p plan) int { return max(s.opts.Recipe.Depth, p.limit) }

// lexicalSide runs lexical search for each kind.
func (s *Service) lexicalSide(ctx context.Context, p plan) (map[memory.Kind][]ports.LexicalHit, error) {
	out := map[memory.Kind][]ports.LexicalHit{}
	for _, kind := range p.kinds {
		hits, err := s.deps.Lexical.SearchLexical(ctx, p.Scope, s.lexicalQuery(p, kind, s.depth(p), nil))
		if err != nil {
			return nil, fmt.Errorf("lexical search: %w", err)
		}
		out[kind] = hits
	}
	return out, nil
}

func (s *Service) lexicalQuery(p plan, kind memory.Kind, limit int, only []string) ports.LexicalQuery {
	q := ports.LexicalQuery{Kind: kind, Terms: p.terms, Since: p.Since, Until: p.Until, Now: p.now, Limit: limit, Only: only}
	if kind == memory.KindMemory {
		// The expanded query is for memories only: a memory is short and in the
		// extractor's words ("User is allergic to penicillin"), so the question's
		// words are often not its own; a message is in the user's own words, which
		// the question usually repeats, and related terms there cost more than they
		// find (LoCoMo recall@10 0.784 → 0.770; docs/BENCHMARKS.md "Natural
		// questions").
		q.Terms, q.Related = p.memoryTerms, p.related
		q.MemoryTypes = typeNames(p.types)
	} else {
		q.ConversationID = p.ConversationID
	}
	return q
}

func typeNames(types []memory.Type) []string {
	var out []string
	for _, t := range types {
		out = append(out, string(t))
	}
	return out
}

// merge joins both retrievers' hits per item and fuses their evidence as the mode
// that answers scores them (mode is lexical after a fallback). An item that
// only the vectors found, below the lexical list's cut, has its lexical evidence
// read too, so that its score does not depend on how deep the lists go.
func (s *Service) merge(ctx context.Context, p plan, mode Mode, lexical map[memory.Kind][]ports.LexicalHit,
	dense map[memory.Kind][]ports.VectorHit,
) ([]candidate, error) {
	var cands []candidate
	for _, kind := range p.kinds {
		at := map[string]int{}
		for _, h := range lexical[kind] {
			at[h.ID] = len(cands)
			cands = append(cands, candidate{id: h.ID, kind: kind, lexical: h.Evidence, speaker: h.Speaker})
		}
		var unread []int // found by the vectors only
		for _, h := range dense[kind] {
			i, seen := at[h.ID]
			if !seen {
				i = len(cands)
				at[h.ID] = i
				cands = append(cands, candidate{id: h.ID, kind: kind})
				unread = append(unread, i)
			}
			cands[i].dense = max(cands[i].dense, s.opts.Dense.Evidence(h.Score))
		}
		if err := s.readMissing(ctx, p, kind, cands, unread, lexical != nil && len(lexical[kind]) >= s.depth(p)); err != nil {
			return nil, err
		}
	}
	named := make(map[string]bool, len(p.terms))
	for _, t := range p.terms {
		named[t] = true
	}
	kept := cands[:0]
	for _, c := range cands {
		c.relevance = s.relevance(mode, c, c.speaker != "" && named[c.speaker])
		if c.relevance.Total() > 0 {
			kept = append(kept, c)
		}
	}
	slices.SortStableFunc(kept, func(a, b candidate) int { return -cmpFloat(a.relevance.Total(), b.relevance.Total()) })
	depth := min(len(kept), s.depth(p)*len(p.kinds))
	p.explain.unreadN(DropLimit, len(kept)-depth)
	return kept[:depth], nil
}

// relevance is a candidate's evidence in the mode asked: lexical and dense fused in
// auto, each alone in its own mode (dense has no lexical evidence, and lexical,
// or a fallback, no dense), then the speaker lift.
func (s *Service) relevance(mode Mode, c candidate, named bool) ranking.Evidence {
	e := c.lexical
	switch mode {
	case ModeDense:
		e = ranking.Evidence{Direct: c.dense}
	case ModeAuto:
		e = s.opts.Dense.Fuse(c.lexical, c.dense)
	}
	return s.opts.Recipe.Lift(e, named)
}

// readMissing completes the items only the vectors found: their speakers (for the
// speaker lift) and, when the lexical list was cut at its depth, their lexical
// evidence below the cut.
func (s *Service) readMissing(ctx context.Context, p plan, kind memory.Kind, cands []candidate, unread []int, cut bool) error {
	if len(unread) == 0 {
		return nil
	}
	ids := make([]string, len(unread))
	for j, i := range unread {
		ids[j] = cands[i].id
	}
	if cut {
		hits, err := s.deps.Lexical.SearchLexical(ctx, p.Scope, s.lexicalQuery(p, kind, 0, ids))
		if err != nil {
			return fmt.Errorf("lexical search: %w", err)
		}
		byID := make(map[string]ports.LexicalHit, len(hits))
		for _, h := range hits {
			byID[h.ID] = h
		}
		for _, i := range unread {
			cands[i].lexical = byID[cands[i].id].Evidence
		}
	}
	if kind != memory.KindMessage || s.opts.Recipe.SpeakerBoost == 0 {
		return nil
	}
	speakers, err := s.deps.Lexical.Speakers(ctx, p.Scope, ids)
	if err != nil {
		return fmt.Errorf("lexical search: %w", err)
	}
	for _, i := range unread {
		cands[i].speaker = speakers[cands[i].id]
	}
	return nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

package retrieval

import (
	"context"
	"errors"
	"strings"
	"sync"

	"engram/domain/memory"
	"engram/domain/vector"
	"engram/ports"
)

// The vector side of the hybrid gather.

type vectorOutcome struct {
	lists  map[memory.Kind][]ports.VectorHit
	reason string // non-empty: vectors gave nothing, and why
}

// vectorSide embeds the query and asks the vector index for each kind, at once.
// The deadline and the breakers are the VectorGuard's, around Deps.Embedder and
// Deps.Vectors.
func (s *Service) vectorSide(ctx context.Context, p plan) vectorOutcome {
	if s.deps.Embedder == nil || s.deps.Vectors == nil {
		return vectorOutcome{reason: FallbackVectorsDisabled}
	}
	if !s.embeddable(p) {
		// Nothing to embed is no vector failure: the breaker never hears of it.
		return vectorOutcome{reason: FallbackNoEmbeddableText}
	}
	vecs, err := s.deps.Embedder.Embed(ctx, []string{DenseQueryText(p.Query, p.Summary)})
	if err != nil {
		return vectorOutcome{reason: fallbackFor(err)}
	}
	if len(vecs) != 1 {
		return vectorOutcome{reason: FallbackVectorError}
	}
	if _, err := vector.Check("vector", vecs[0], len(vecs[0])); err != nil {
		// No length (or no usable values): the embedder found nothing to embed.
		return vectorOutcome{reason: FallbackNoEmbeddableText}
	}
	lists := make([][]ports.VectorHit, len(p.kinds))
	errs := make([]error, len(p.kinds))
	var wg sync.WaitGroup
	for i, kind := range p.kinds {
		wg.Go(func() { lists[i], errs[i] = s.deps.Vectors.Search(ctx, s.vectorQuery(p, kind, vecs[0])) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return vectorOutcome{reason: fallbackFor(err)}
	}
	out := vectorOutcome{lists: map[memory.Kind][]ports.VectorHit{}}
	for i, kind := range p.kinds {
		for _, h := range lists[i] {
			if h.Kind == "" || h.Kind == kind {
				out.lists[kind] = append(out.lists[kind], h)
			}
		}
	}
	return out
}

// embeddable reports whether the query has words to embed: a query of emoji or
// punctuation only, or only stop words ("a"), has none.
func (s *Service) embeddable(p plan) bool {
	return len(p.terms) > 0 || (p.Summary != "" && len(s.deps.Analyzer.Terms(p.Summary)) > 0)
}

func (s *Service) vectorQuery(p plan, kind memory.Kind, vector []float32) ports.VectorQuery {
	q := ports.VectorQuery{
		Tenant: p.Scope.Tenant, User: p.Scope.User, Kinds: []memory.Kind{kind},
		Since: p.Since, Until: p.Until, Vector: vector, Limit: s.depth(p),
	}
	if kind == memory.KindMemory {
		q.MemoryTypes = typeNames(p.types)
	} else {
		q.ConversationID = p.ConversationID
	}
	return q
}

// fallbackFor names why the vector side failed.
func fallbackFor(err error) string {
	switch {
	case errors.Is(err, ErrBreakerOpen):
		return FallbackBreakerOpen
	case errors.Is(err, ErrVectorTimeout):
		return FallbackVectorTimeout
	}
	return FallbackVectorError
}

// DenseQueryText is what is embedded for a search: the question, then the session
// summary when there is one.
func DenseQueryText(question, summary string) string {
	if summary = strings.TrimSpace(summary); summary != "" {
		return question + "\n" + summary
	}
	return question
}

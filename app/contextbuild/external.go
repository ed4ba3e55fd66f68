package contextbuild

import (
	"strconv"

	"engram/domain/ranking"
)

// scoreExternal gives every external item its score: the caller's when given,
// used as it is; otherwise the text's lexical evidence for the query, as search
// measures it (the matched share of the query's IDF mass, ranking.Index.Match, over
// the unscored items plus the recipe's background texts), which with no other
// signal is the item's score (ranking.Score).
func (s *Service) scoreExternal(p plan) []float64 {
	scores := make([]float64, len(p.External))
	ix := ranking.NewIndex(s.opts.Recipe.BM25)
	for i, x := range p.External {
		if x.Score != nil {
			scores[i] = *x.Score
			continue
		}
		ix.Add(strconv.Itoa(i), ranking.Field{Terms: s.deps.Analyzer.Terms(x.Text), Weight: 1})
	}
	if ix.Len() == 0 {
		return scores
	}
	now := s.deps.Clock.Now()
	for _, m := range ix.Match(s.deps.Analyzer.Terms(p.Query), s.opts.Recipe, 0) {
		i, _ := strconv.Atoi(m.ID)
		c := ranking.Candidate{ID: m.ID, Evidence: m.Evidence, Confidence: -1, ExactKey: -1}
		scores[i] = ranking.Score(c, now, s.opts.Weights).Total()
	}
	return scores
}

package ranking

import "sort"

// ExpandQuery is pseudo-relevance feedback (RM3-style, simplified): the terms that
// the top results share, weighted by those results' normalised scores and by idf,
// are added to the query at weight feedbackWeight, the best n of them. It helps when
// the words of the answer differ from the question's; it hurts when the first
// results are wrong, hence the small weight.
func ExpandQuery(query []string, top []Scored, termsOf func(id string) []string, idf func(term string) float64, n int, feedbackWeight float64) []QueryTerm {
	out := make([]QueryTerm, 0, len(query)+n)
	inQuery := make(map[string]bool, len(query))
	for _, t := range query {
		out = append(out, QueryTerm{Term: t, Weight: 1})
		inQuery[t] = true
	}
	if len(top) == 0 || n <= 0 || feedbackWeight <= 0 || top[0].Score <= 0 {
		return out
	}
	weights := make(map[string]float64)
	for _, s := range top {
		terms := termsOf(s.ID)
		if len(terms) == 0 {
			continue
		}
		rel := s.Score / top[0].Score
		for _, t := range terms {
			if !inQuery[t] {
				weights[t] += rel / float64(len(terms))
			}
		}
	}
	cands := make([]QueryTerm, 0, len(weights))
	for t, w := range weights {
		cands = append(cands, QueryTerm{Term: t, Weight: w * idf(t)})
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].Weight != cands[j].Weight {
			return cands[i].Weight > cands[j].Weight
		}
		return cands[i].Term < cands[j].Term
	})
	if len(cands) > n {
		cands = cands[:n]
	}
	if len(cands) == 0 {
		return out
	}
	top1 := cands[0].Weight
	for _, c := range cands {
		out = append(out, QueryTerm{Term: c.Term, Weight: feedbackWeight * c.Weight / top1})
	}
	return out
}

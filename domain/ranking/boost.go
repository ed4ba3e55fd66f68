package ranking

// BoostNamed multiplies by (1 + boost) the score of every item whose speaker the
// query names, and re-sorts. speakerTerm gives the analysed name of an item's
// speaker ("" when unknown); queryTerms are the analysed query. A question about
// "Melanie" is most often answered by what Melanie said, and a name is a weak term
// for BM25 (every message of hers carries it), so the prior is added here instead.
// It only reorders what retrieval found, never adds items, and leaves scores ≤ 0
// (a negative cosine) alone, since multiplying them would demote.
func BoostNamed(items []Scored, queryTerms []string, speakerTerm func(id string) string, boost float64) {
	if boost == 0 || len(items) == 0 {
		return
	}
	named := make(map[string]bool, len(queryTerms))
	for _, t := range queryTerms {
		named[t] = true
	}
	changed := false
	for i := range items {
		if s := speakerTerm(items[i].ID); s != "" && named[s] && items[i].Score > 0 {
			items[i].Score *= 1 + boost
			changed = true
		}
	}
	if changed {
		SortScored(items)
	}
}

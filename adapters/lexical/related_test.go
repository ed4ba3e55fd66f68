package lexical

import (
	"math"
	"testing"

	"engram/domain/memory"
	"engram/domain/ranking"
	"engram/ports"
)

// TestKindIndex_relatedTermsEarnTheirWeightOfTheTermsShare: a document that has
// only a related term of a query term is credited that term's share of the query
// at the related term's weight (scaled to the query term's idf, whatever the
// related term's own rarity); a document with the term itself keeps its full
// share; related terms add nothing to the query's mass, so the other documents'
// evidence does not change.
func TestKindIndex_relatedTermsEarnTheirWeightOfTheTermsShare(t *testing.T) {
	t.Parallel()
	r := ranking.DefaultRecipe
	build := func() *kindIndex {
		ki := newKindIndex(0, 0)
		ki.put(&ports.LexicalDoc{Kind: memory.KindMemory, ID: "own", Terms: []string{"medicin", "list"}})
		ki.put(&ports.LexicalDoc{Kind: memory.KindMemory, ID: "related", Terms: []string{"allergi", "penicillin"}})
		ki.put(&ports.LexicalDoc{Kind: memory.KindMemory, ID: "other", Terms: []string{"avoid", "sugar"}})
		return ki
	}
	evidence := func(q ports.LexicalQuery, terms []string) map[string]float64 {
		out := map[string]float64{}
		for _, h := range build().search(newFilter(&q), terms, 0, r) {
			out[h.ID] = h.Evidence.Total()
		}
		return out
	}
	terms := []string{"medicin", "avoid"}
	plain := evidence(ports.LexicalQuery{}, terms)
	related := []ports.RelatedTerm{{Of: "medicin", Term: "penicillin", Weight: 0.5}, {Of: "medicin", Term: "allergi", Weight: 0.25}}
	got := evidence(ports.LexicalQuery{Related: related}, terms)
	if _, ok := plain["related"]; ok {
		t.Fatalf("without related terms the allergy memory matched: %v", plain)
	}
	for _, id := range []string{"own", "other"} {
		if math.Abs(got[id]-plain[id]) > 1e-12 {
			t.Errorf("%s: evidence %v with related terms, %v without; want the same", id, got[id], plain[id])
		}
	}
	// The related document has the best related term (penicillin, 0.5) once, in
	// a text as long as "own" has medicin: half of own's share of medicin.
	own := build()
	ownHit := own.search(newFilter(&ports.LexicalQuery{}), []string{"medicin"}, 0, r)
	want := 0.5 * ownHit[0].Evidence.Total() * plainShare(own, r)
	if math.Abs(got["related"]-want) > 1e-9 {
		t.Errorf("related: evidence %v; want %v (0.5 of the medicin share)", got["related"], want)
	}
	if got["related"] >= got["own"] {
		t.Errorf("related %v ≥ own %v; a related term must earn less than the term", got["related"], got["own"])
	}
}

// plainShare is medicin's idf share of the query {medicin, avoid}.
func plainShare(ki *kindIndex, r ranking.Recipe) float64 {
	m := r.IDF(len(ki.postings["medicin"]), ki.n)
	a := r.IDF(len(ki.postings["avoid"]), ki.n)
	return m / (m + a)
}

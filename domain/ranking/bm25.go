package ranking

import (
	"math"
	"sort"
)

// BM25 holds the two parameters of Okapi BM25. The zero value is not useful; start
// from DefaultBM25.
type BM25 struct {
	// K1 is how fast repeated terms saturate: 0 counts presence only; higher values
	// let long repetitive texts win.
	K1 float64
	// B is how much a text's length is held against it: 0 not at all, 1 fully.
	B float64
}

// DefaultBM25 is Robertson's and Lucene's default. Chat messages are short and of
// similar length, so neither parameter matters much; the defaults are kept rather
// than tuned to one data set (docs/BENCHMARKS.md shows the sensitivity).
var DefaultBM25 = BM25{K1: 1.2, B: 0.75}

// IDF is the probabilistic inverse document frequency as Lucene computes it,
// ln(1 + (n − df + 0.5)/(df + 0.5)), which stays positive for terms in more than
// half of the n texts.
func IDF(df, n int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// TermScore is one query term's contribution to a text: idf times the saturated
// term frequency tf (which may be fractional when fields carry weights) normalised
// by the text's length against the average.
func (p BM25) TermScore(idf, tf, docLen, avgDocLen float64) float64 {
	if tf <= 0 {
		return 0
	}
	norm := 1.0
	if avgDocLen > 0 {
		norm = 1 - p.B + p.B*docLen/avgDocLen
	}
	return idf * tf * (p.K1 + 1) / (tf + p.K1*norm)
}

// Field is a part of a text with its weight: a message's own words at 1 and its
// neighbours' words at less, for instance. Terms come from ports.TextAnalyzer.
// Context marks words that are not the text's own (its neighbours'): Match counts
// them as context evidence.
type Field struct {
	Terms   []string
	Weight  float64
	Context bool
}

// Index is an in-memory BM25 index over weighted fields (BM25F-style: term
// frequencies and lengths are weighted sums over the fields). It suits one user's
// texts in the embedded deployment and evaluation; a database's full-text index
// plays its part at scale. Not safe for concurrent writes.
type Index struct {
	params   BM25
	ids      []string
	lengths  []float64
	postings map[string][]posting
	totalLen float64
}

type posting struct {
	doc int32
	tf  float64 // weighted, over every field
	ctx float64 // the part of tf from context fields
}

// NewIndex returns an empty index scoring with params.
func NewIndex(params BM25) *Index {
	return &Index{params: params, postings: make(map[string][]posting)}
}

// Add indexes the text id made of fields. Adding the same id twice indexes it twice.
func (ix *Index) Add(id string, fields ...Field) {
	doc := int32(len(ix.ids))
	tfs := make(map[string]float64)
	ctx := make(map[string]float64)
	length := 0.0
	for _, f := range fields {
		for _, t := range f.Terms {
			tfs[t] += f.Weight
			if f.Context {
				ctx[t] += f.Weight
			}
		}
		length += f.Weight * float64(len(f.Terms))
	}
	for t, tf := range tfs {
		ix.postings[t] = append(ix.postings[t], posting{doc: doc, tf: tf, ctx: ctx[t]})
	}
	ix.ids = append(ix.ids, id)
	ix.lengths = append(ix.lengths, length)
	ix.totalLen += length
}

// Len is the number of indexed texts.
func (ix *Index) Len() int { return len(ix.ids) }

// Search scores every text that shares a term with the query and returns the best
// limit (all when limit ≤ 0), highest score first, ties by insertion order. A term
// repeated in the query counts as often as it is repeated.
func (ix *Index) Search(queryTerms []string, limit int) []Scored {
	weighted := make([]QueryTerm, len(queryTerms))
	for i, t := range queryTerms {
		weighted[i] = QueryTerm{Term: t, Weight: 1}
	}
	return ix.SearchWeighted(weighted, limit)
}

// QueryTerm is a query term with its weight (1 for the words the user typed).
type QueryTerm struct {
	Term   string
	Weight float64
}

// IDF is the inverse document frequency of term in this index.
func (ix *Index) IDF(term string) float64 {
	return IDF(len(ix.postings[term]), len(ix.ids))
}

// SearchWeighted is Search with a weight per query term.
func (ix *Index) SearchWeighted(query []QueryTerm, limit int) []Scored {
	if len(ix.ids) == 0 {
		return nil
	}
	n := len(ix.ids)
	avg := ix.totalLen / float64(n)
	scores := make([]float64, n)
	matched := make([]bool, n)
	for _, q := range query {
		ps := ix.postings[q.Term]
		if len(ps) == 0 || q.Weight == 0 {
			continue
		}
		idf := IDF(len(ps), n)
		for _, p := range ps {
			scores[p.doc] += q.Weight * ix.params.TermScore(idf, p.tf, ix.lengths[p.doc], avg)
			matched[p.doc] = true
		}
	}
	var out []Scored
	for doc, s := range scores {
		if matched[doc] {
			out = append(out, Scored{ID: ix.ids[doc], Score: s})
		}
	}
	SortScored(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// Matched is one text's calibrated lexical evidence for a query.
type Matched struct {
	ID       string
	Evidence Evidence
}

// Match is the calibrated counterpart of Search: every text that shares a term
// with the query, with its lexical evidence (Recipe.TermMatch over the query's
// terms divided by QueryMass, r's BM25 parameters instead of the index's), best
// first, ties by insertion order, the best limit (all when limit ≤ 0).
func (ix *Index) Match(queryTerms []string, r Recipe, limit int) []Matched {
	if len(ix.ids) == 0 || len(queryTerms) == 0 {
		return nil
	}
	n := len(ix.ids)
	avg := ix.totalLen / float64(n)
	direct := make([]float64, n)
	context := make([]float64, n)
	matched := make([]bool, n)
	idfs := make([]float64, len(queryTerms))
	for i, t := range queryTerms {
		ps := ix.postings[t]
		idfs[i] = r.IDF(len(ps), n)
		for _, p := range ps {
			d, c := r.TermMatch(idfs[i], p.tf-p.ctx, p.ctx, ix.lengths[p.doc], avg)
			direct[p.doc] += d
			context[p.doc] += c
			matched[p.doc] = true
		}
	}
	mass := QueryMass(idfs)
	var out []Matched
	for doc := range ix.ids {
		if matched[doc] {
			out = append(out, Matched{ID: ix.ids[doc], Evidence: LexicalEvidence(direct[doc], context[doc], mass)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Evidence.Total() > out[j].Evidence.Total() })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// Scored is one result of a ranked list.
type Scored struct {
	ID    string
	Score float64
}

// SortScored orders by score, highest first, keeping the given order among equal
// scores so that results are reproducible.
func SortScored(s []Scored) {
	sort.SliceStable(s, func(i, j int) bool { return s[i].Score > s[j].Score })
}

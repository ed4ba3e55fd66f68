package lexical

import (
	"cmp"
	"slices"
	"sync"

	"engram/domain/ranking"
	"engram/ports"
)

// filter is a query's conditions on documents, in the form scoring reads them.
type filter struct {
	q     *ports.LexicalQuery
	now   int64
	since int64
	until int64
	only  map[string]bool
}

func newFilter(q *ports.LexicalQuery) filter {
	f := filter{q: q, now: unixNanos(q.Now), since: unixNanos(q.Since), until: unixNanos(q.Until)}
	if q.Only != nil {
		f.only = make(map[string]bool, len(q.Only))
		for _, id := range q.Only {
			f.only[id] = true
		}
	}
	return f
}

func (f *filter) keeps(d *lexDoc) bool {
	switch {
	case f.only != nil && !f.only[d.id]:
		return false
	case d.expires != 0 && f.now != 0 && f.now >= d.expires:
		return false
	case len(f.q.MemoryTypes) > 0 && !slices.Contains(f.q.MemoryTypes, d.memType):
		return false
	case f.q.ConversationID != "" && d.convID != f.q.ConversationID:
		return false
	case f.since != 0 && d.at < f.since:
		return false
	case f.until != 0 && d.at >= f.until:
		return false
	}
	return true
}

// scratch is a search's per-document buffers, reused across searches.
type scratch struct {
	own, nb  []float64 // the current term's frequency in the document and in its neighbours
	direct   []float64 // Σ over terms of TermMatch's direct part
	context  []float64 // … and of its context part
	hit      []bool
	want     []bool // with Only: the documents asked for; others are not scored
	only     bool
	touched  []int32
	matched  []int32
	queryIDF []float64
	// a term with related terms: the best match per document (scoreGroup)
	group   []groupMatch
	groupAt []int32 // per document: its place in group + 1, 0 when not there
}

type groupMatch struct {
	doc             int32
	direct, context float64
}

var scratchPool = sync.Pool{New: func() any { return &scratch{} }}

func (s *scratch) reset(n int) {
	if cap(s.own) < n {
		s.own, s.nb = make([]float64, n), make([]float64, n)
		s.direct, s.context = make([]float64, n), make([]float64, n)
		s.hit, s.want = make([]bool, n), make([]bool, n)
		s.groupAt = make([]int32, n)
	}
	s.own, s.nb, s.direct, s.context, s.hit, s.want = s.own[:n], s.nb[:n], s.direct[:n], s.context[:n], s.hit[:n], s.want[:n]
	s.groupAt = s.groupAt[:n]
	s.only = false
	s.touched, s.matched, s.queryIDF = s.touched[:0], s.matched[:0], s.queryIDF[:0]
}

// search scores every document that shares a term with the query (in its own text
// or its neighbours') as ranking.Index.Match does over ContextFields, keeps those
// that pass the filter and returns the best limit (all when limit ≤ 0), the most
// evident first, ties by id (arrival order).
func (ki *kindIndex) search(f filter, query []string, limit int, r ranking.Recipe) []ports.LexicalHit {
	if ki.n == 0 || len(query) == 0 {
		return nil
	}
	m := r.Matcher(ki.totalLen / float64(ki.n))
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	s.reset(len(ki.docs))
	if f.only != nil {
		// Only the documents asked for are scored (the term statistics still count
		// every document): full_inject's memories, the vector-only hits of auto.
		s.only = true
		for id := range f.only {
			if slot, ok := ki.byID[id]; ok {
				s.want[slot] = true
			}
		}
		defer clear(s.want)
	}
	related := relatedOf(f.q.Related)
	for _, qt := range countTerms(query) {
		var idf float64
		if alts := related[qt.term]; len(alts) > 0 {
			idf = ki.scoreGroup(s, qt, alts, m, r)
		} else {
			idf = ki.scoreTerm(s, qt.term, qt.count, m, r)
		}
		for range qt.count {
			s.queryIDF = append(s.queryIDF, idf)
		}
	}
	mass := ranking.QueryMass(s.queryIDF)
	top := newTopHits(limit)
	for _, doc := range s.matched {
		if d := &ki.docs[doc]; d.alive && f.keeps(d) {
			// Ranked by the raw sum (the mass is the query's, the same for all);
			// the evidence is made for the kept ones only.
			top.offer(hitRef{slot: doc, sum: s.direct[doc] + s.context[doc], id: d.id})
		}
	}
	kept := top.sorted()
	hits := make([]ports.LexicalHit, len(kept))
	for i, h := range kept {
		d := &ki.docs[h.slot]
		hits[i] = ports.LexicalHit{ID: d.id, Evidence: ranking.LexicalEvidence(s.direct[h.slot], s.context[h.slot], mass), Speaker: d.speaker}
	}
	for _, doc := range s.matched {
		s.direct[doc], s.context[doc], s.hit[doc] = 0, 0, false
	}
	return hits
}

type queryTerm struct {
	term  string
	count int
}

// countTerms is the query's distinct terms with their counts, in order of first
// appearance, so that sums are made in one order and scores are reproducible.
func countTerms(query []string) []queryTerm {
	var terms []queryTerm
	seen := make(map[string]int, len(query))
	for _, t := range query {
		if i, ok := seen[t]; ok {
			terms[i].count++
			continue
		}
		seen[t] = len(terms)
		terms = append(terms, queryTerm{t, 1})
	}
	return terms
}

// scoreTerm adds count times the term's TermMatch to every document that has it
// in its own text or its neighbours', and returns the term's idf (that of an
// absent term when no document has it).
func (ki *kindIndex) scoreTerm(s *scratch, term string, count int, m ranking.Matcher, r ranking.Recipe) float64 {
	q := float64(count)
	return ki.eachMatch(s, term, m, r, func(doc int32, d, c, _ float64) {
		s.direct[doc] += q * d
		s.context[doc] += q * c
		s.markMatched(doc)
	})
}

// scoreGroup is scoreTerm for a term with related terms: each document earns the
// best of the term's own TermMatch and each related term's at its weight, scaled
// to the term's idf (a related term earns at most its weight of the term's share
// of the query, whatever its own rarity). It returns the term's idf.
func (ki *kindIndex) scoreGroup(s *scratch, qt queryTerm, alts []ports.RelatedTerm, m ranking.Matcher, r ranking.Recipe) float64 {
	s.group = s.group[:0]
	var idf float64 // the term's own, set before any related term is matched
	best := func(weight float64) func(doc int32, d, c, termIDF float64) {
		return func(doc int32, d, c, termIDF float64) {
			scale := 1.0
			if weight < 1 {
				scale = weight * idf / termIDF
			}
			d, c = d*scale, c*scale
			g := s.groupAt[doc]
			if g == 0 {
				s.group = append(s.group, groupMatch{doc: doc, direct: d, context: c})
				s.groupAt[doc] = int32(len(s.group))
				return
			}
			if e := &s.group[g-1]; d+c > e.direct+e.context {
				e.direct, e.context = d, c
			}
		}
	}
	idf = r.IDF(0, ki.n)
	if len(ki.postings[qt.term]) > 0 {
		idf = ki.eachMatch(s, qt.term, m, r, best(1))
	}
	// Related terms cost their postings: at most as many as the term's own (or
	// minRelatedPostings), the heaviest terms first, so that a user with 100,000
	// memories does not pay for every sibling of a common word.
	budget := max(minRelatedPostings, len(ki.postings[qt.term]))
	for _, a := range alts {
		n := len(ki.postings[a.Term])
		if a.Term == qt.term || a.Weight <= 0 || n == 0 || n > budget {
			continue
		}
		budget -= n
		ki.eachMatch(s, a.Term, m, r, best(min(a.Weight, 0.999)))
	}
	q := float64(qt.count)
	for _, g := range s.group {
		s.direct[g.doc] += q * g.direct
		s.context[g.doc] += q * g.context
		s.markMatched(g.doc)
		s.groupAt[g.doc] = 0
	}
	return idf
}

// eachMatch calls fn with the term's TermMatch (direct and contextual parts) in
// every document that has it in its own text or its neighbours' (with Only, the
// documents asked for), and returns the term's idf (that of an absent term when
// no document has it).
func (ki *kindIndex) eachMatch(s *scratch, term string, m ranking.Matcher, r ranking.Recipe, fn func(doc int32, d, c, idf float64)) float64 {
	ps := ki.postings[term]
	if len(ps) == 0 {
		return r.IDF(0, ki.n)
	}
	if ki.window == 0 {
		// No neighbours: each posting is its document's whole frequency, and the
		// document frequency is the list's length.
		idf := r.IDF(len(ps), ki.n)
		for _, p := range ps {
			if s.only && !s.want[p.doc] {
				continue
			}
			d, _ := m.Match(idf, float64(p.tf), 0, ki.lens[p.doc])
			fn(p.doc, d, 0, idf)
		}
		return idf
	}
	s.touched = s.touched[:0]
	touch := func(doc int32) {
		if s.own[doc] == 0 && s.nb[doc] == 0 {
			s.touched = append(s.touched, doc)
		}
	}
	for _, p := range ps {
		tf := float64(p.tf)
		touch(p.doc)
		s.own[p.doc] += tf
		d := &ki.docs[p.doc]
		if d.conv == nil {
			continue
		}
		for j := max(0, d.pos-ki.window); j <= min(len(d.conv.docs)-1, d.pos+ki.window); j++ {
			if j != d.pos {
				nb := d.conv.docs[j]
				touch(nb)
				s.nb[nb] += ki.nbWeight * tf
			}
		}
	}
	idf := r.IDF(len(s.touched), ki.n)
	for _, doc := range s.touched {
		if !s.only || s.want[doc] {
			d, c := m.Match(idf, s.own[doc], s.nb[doc], ki.lens[doc])
			fn(doc, d, c, idf)
		}
		s.own[doc], s.nb[doc] = 0, 0
	}
	return idf
}

// minRelatedPostings is the postings a term's related terms may read at least.
const minRelatedPostings = 4096

// relatedOf groups a query's related terms by the term they stand in for.
func relatedOf(related []ports.RelatedTerm) map[string][]ports.RelatedTerm {
	if len(related) == 0 {
		return nil
	}
	out := make(map[string][]ports.RelatedTerm, len(related))
	for _, rt := range related {
		out[rt.Of] = append(out[rt.Of], rt)
	}
	for _, alts := range out {
		slices.SortStableFunc(alts, func(a, b ports.RelatedTerm) int { return cmp.Compare(b.Weight, a.Weight) })
	}
	return out
}

func (s *scratch) markMatched(doc int32) {
	if !s.hit[doc] {
		s.hit[doc] = true
		s.matched = append(s.matched, doc)
	}
}

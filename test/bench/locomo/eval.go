package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Tally adds up recall@k and hit@k over questions.
type Tally struct {
	N      int
	Recall map[int]float64 // sum of recall@k
	Hit    map[int]float64 // count of hit@k
}

func newTally() *Tally { return &Tally{Recall: map[int]float64{}, Hit: map[int]float64{}} }

func (t *Tally) add(o *Tally) {
	t.N += o.N
	for k, v := range o.Recall {
		t.Recall[k] += v
	}
	for k, v := range o.Hit {
		t.Hit[k] += v
	}
}

// R is mean recall@k.
func (t *Tally) R(k int) float64 {
	if t.N == 0 {
		return 0
	}
	return t.Recall[k] / float64(t.N)
}

// H is hit@k: the share of questions with any evidence in the top k.
func (t *Tally) H(k int) float64 {
	if t.N == 0 {
		return 0
	}
	return t.Hit[k] / float64(t.N)
}

// Report is the outcome of one method over some conversations.
type Report struct {
	Overall *Tally
	ByCat   map[int]*Tally
	ByConv  map[string]*Tally
}

func newReport() *Report {
	return &Report{Overall: newTally(), ByCat: map[int]*Tally{}, ByConv: map[string]*Tally{}}
}

func (r *Report) merge(o *Report) {
	r.Overall.add(o.Overall)
	for c, t := range o.ByCat {
		if r.ByCat[c] == nil {
			r.ByCat[c] = newTally()
		}
		r.ByCat[c].add(t)
	}
	for c, t := range o.ByConv {
		if r.ByConv[c] == nil {
			r.ByConv[c] = newTally()
		}
		r.ByConv[c].add(t)
	}
}

// evaluate runs the protocol: index each conversation, ask each of its questions,
// score the top max(ks) ids. Conversations run on `workers` goroutines, each with
// its own retriever from newRetriever.
func evaluate(ctx context.Context, newRetriever func() Retriever, convs []Conversation, ks []int, workers int) (*Report, error) {
	maxK := 0
	for _, k := range ks {
		maxK = max(maxK, k)
	}
	reports := make([]*Report, len(convs))
	errs := make([]error, len(convs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := newRetriever()
			for i := range next {
				reports[i], errs[i] = evaluateOne(ctx, r, convs[i], ks, maxK)
			}
		}()
	}
	for i := range convs {
		next <- i
	}
	close(next)
	wg.Wait()
	total := newReport()
	for i, rep := range reports {
		if errs[i] != nil {
			return nil, fmt.Errorf("%s: %w", convs[i].ID, errs[i])
		}
		total.merge(rep)
	}
	return total, nil
}

func evaluateOne(ctx context.Context, r Retriever, c Conversation, ks []int, maxK int) (*Report, error) {
	if err := r.Index(ctx, c.Turns); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	rep := newReport()
	rep.ByConv[c.ID] = newTally()
	for _, q := range c.Questions {
		ids, err := r.Search(ctx, q.Text, maxK)
		if err != nil {
			return nil, fmt.Errorf("search %q: %w", q.Text, err)
		}
		t := newTally()
		t.N = 1
		for _, k := range ks {
			found := 0
			top := ids[:min(k, len(ids))]
			for _, e := range q.Evidence {
				for _, id := range top {
					if id == e {
						found++
						break
					}
				}
			}
			t.Recall[k] = float64(found) / float64(len(q.Evidence))
			if found > 0 {
				t.Hit[k] = 1
			}
		}
		if rep.ByCat[q.Category] == nil {
			rep.ByCat[q.Category] = newTally()
		}
		rep.ByCat[q.Category].add(t)
		rep.ByConv[c.ID].add(t)
		rep.Overall.add(t)
	}
	return rep, nil
}

// table renders the report as a Markdown table: one row per category and overall.
func (r *Report) table(ks []int, hitK int) string {
	var b strings.Builder
	b.WriteString("| category | questions |")
	for _, k := range ks {
		fmt.Fprintf(&b, " recall@%d |", k)
	}
	fmt.Fprintf(&b, " hit@%d |\n|---|---:|", hitK)
	for range ks {
		b.WriteString("---:|")
	}
	b.WriteString("---:|\n")
	cats := make([]int, 0, len(r.ByCat))
	for c := range r.ByCat {
		cats = append(cats, c)
	}
	sort.Ints(cats)
	row := func(name string, t *Tally) {
		fmt.Fprintf(&b, "| %s | %d |", name, t.N)
		for _, k := range ks {
			fmt.Fprintf(&b, " %.3f |", t.R(k))
		}
		fmt.Fprintf(&b, " %.3f |\n", t.H(hitK))
	}
	for _, c := range cats {
		row(fmt.Sprintf("%d %s", c, categoryNames[c]), r.ByCat[c])
	}
	row("**all**", r.Overall)
	return b.String()
}

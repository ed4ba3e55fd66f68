package localvec

import (
	"runtime"
	"sync"

	"github.com/viterin/vek/vek32"

	"engram/domain/memory"
	"engram/ports"
)

// partKey names a partition: one tenant's user's vectors of one kind. Searches only
// ever open the partitions of the asking user, so other users' vectors are never
// candidates, and a kind filter picks partitions instead of dropping hits.
type partKey struct {
	tenant string
	user   string
	kind   memory.Kind
}

// record is one stored vector. vec is normalised and never written after the record
// is created, so a graph may share it.
type record struct {
	id             string
	memoryType     string
	conversationID string
	atMillis       int64
	vec            []float32
	seq            uint64 // version of this slot's content; graph nodes are keyed by it
	live           bool
}

// partition holds the vectors of one partKey in slots; deleted slots are reused.
type partition struct {
	mu      sync.RWMutex
	kind    memory.Kind
	records []record
	slotOf  map[string]int32 // id → slot of the live record
	free    []int32
	lastSeq uint64

	graph    *graphIndex // nil: exact scan only
	building bool        // a graph build for this partition is running

	// quantised holds each slot's int8 copy (quantised.go) at slot*stride, scales
	// its scale. Only partitions big enough to be prefiltered keep copies (nil
	// otherwise), so the many small partitions pay nothing for them.
	quantised []int8
	scales    []float32
	stride    int
}

func newPartition(kind memory.Kind, stride int) *partition {
	return &partition{kind: kind, slotOf: make(map[string]int32), stride: stride}
}

// keepQuantised makes the partition keep int8 copies while it holds at least
// threshold live records, and drops them once it falls under half of that (the
// gap keeps a partition at the edge from rebuilding them on every write). A
// threshold of 0 or less keeps none. Callers hold p.mu.
func (p *partition) keepQuantised(threshold int) {
	switch n := p.live(); {
	case p.quantised == nil && threshold > 0 && n >= threshold:
		w := p.stride
		p.quantised = make([]int8, len(p.records)*w)
		p.scales = make([]float32, len(p.records))
		for slot := range p.records {
			if r := &p.records[slot]; r.live {
				p.scales[slot] = quantise(r.vec, p.quantised[slot*w:(slot+1)*w])
			}
		}
	case p.quantised != nil && n < threshold/2:
		p.quantised, p.scales = nil, nil
	}
}

func (p *partition) live() int { return len(p.slotOf) }

// put stores r, replacing the record with the same id. Callers hold p.mu.
func (p *partition) put(r record) {
	p.remove(r.id)
	p.lastSeq++
	r.seq, r.live = p.lastSeq, true
	var slot int32
	if n := len(p.free); n > 0 {
		slot = p.free[n-1]
		p.free = p.free[:n-1]
		p.records[slot] = r
	} else {
		slot = int32(len(p.records))
		p.records = append(p.records, r)
		if p.quantised != nil {
			p.quantised = append(p.quantised, make([]int8, p.stride)...)
			p.scales = append(p.scales, 0)
		}
	}
	if w := p.stride; p.quantised != nil {
		p.scales[slot] = quantise(r.vec, p.quantised[int(slot)*w:(int(slot)+1)*w])
	}
	p.slotOf[r.id] = slot
	if p.graph != nil {
		p.graph.added(slot)
	}
}

// remove deletes the live record with this id, if any. Callers hold p.mu.
func (p *partition) remove(id string) bool {
	slot, ok := p.slotOf[id]
	if !ok {
		return false
	}
	if p.graph != nil {
		p.graph.removed(slot, p.records[slot].seq)
	}
	delete(p.slotOf, id)
	p.records[slot] = record{} // drop the vector so the memory can be reclaimed
	p.free = append(p.free, slot)
	return true
}

// searchPlan is how an index searches its partitions.
type searchPlan struct {
	hnswEf int
	// quantisedFrom is the number of live records from which a partition is
	// scanned by its int8 copies (0: never); candidates is how many records are
	// scored exactly then.
	quantisedFrom, candidates int
}

// search adds this partition's best matches for q to top. Callers hold p.mu for
// reading. The graph answers only unfiltered searches: a filter is applied to every
// record before it is scored, which a graph walk cannot do.
func (p *partition) search(q []float32, f filter, top *topK, plan searchPlan) {
	if p.graph != nil && !f.restricts() {
		p.graph.search(p, q, top, plan.hnswEf)
		return
	}
	if n := p.live(); p.quantised != nil && n >= plan.quantisedFrom {
		// Scoring as many candidates as there are records is the exact scan.
		if c := max(plan.candidates, top.k); c < n {
			p.quantisedSearch(q, f, top, c)
			return
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(p.records)/parallelScanMin)
	if workers < 2 {
		p.scan(q, f, top, 0, len(p.records))
		return
	}
	// A large partition is scanned by several goroutines, each keeping its own best
	// k, merged at the end: the scan is bound by memory bandwidth, which one core
	// does not saturate.
	tops := make([]*topK, workers)
	var wg sync.WaitGroup
	chunk := (len(p.records) + workers - 1) / workers
	for w := range workers {
		tops[w] = newTopK(top.k)
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.scan(q, f, tops[w], w*chunk, min((w+1)*chunk, len(p.records)))
		}()
	}
	wg.Wait()
	for _, t := range tops {
		for _, h := range t.hits {
			if top.wants(h.Score) {
				top.push(h)
			}
		}
	}
}

// parallelScanMin is the number of records per goroutine below which a parallel
// scan costs more in coordination than it saves (measured in bench_test.go).
const parallelScanMin = 16384

func (p *partition) scan(q []float32, f filter, top *topK, from, to int) {
	restricted := f.restricts()
	for i := from; i < to; i++ {
		r := &p.records[i]
		if !r.live || (restricted && !f.match(r)) {
			continue
		}
		p.offer(top, r, q)
	}
}

func (p *partition) offer(top *topK, r *record, q []float32) {
	score := float64(vek32.Dot(q, r.vec))
	// Normalised vectors can overshoot ±1 by a rounding error.
	score = max(-1, min(1, score))
	if top.wants(score) {
		top.push(ports.VectorHit{ID: r.id, Kind: p.kind, Score: score})
	}
}

// filter is a query's restrictions inside one user's partition.
type filter struct {
	memoryTypes    []string
	conversationID string
	since, until   int64 // unix ms; since inclusive, until exclusive
	hasSince       bool
	hasUntil       bool
}

func newFilter(q ports.VectorQuery) filter {
	f := filter{memoryTypes: q.MemoryTypes, conversationID: q.ConversationID}
	if !q.Since.IsZero() {
		f.since, f.hasSince = q.Since.UnixMilli(), true
	}
	if !q.Until.IsZero() {
		f.until, f.hasUntil = q.Until.UnixMilli(), true
	}
	return f
}

func (f filter) restricts() bool {
	return len(f.memoryTypes) > 0 || f.conversationID != "" || f.hasSince || f.hasUntil
}

func (f filter) match(r *record) bool {
	if f.conversationID != "" && r.conversationID != f.conversationID {
		return false
	}
	if f.hasSince && r.atMillis < f.since {
		return false
	}
	if f.hasUntil && r.atMillis >= f.until {
		return false
	}
	if len(f.memoryTypes) == 0 {
		return true
	}
	for _, t := range f.memoryTypes {
		if r.memoryType == t {
			return true
		}
	}
	return false
}

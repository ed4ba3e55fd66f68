package lexical

import (
	"sort"
	"strings"
	"time"

	"engram/ports"
)

// kindIndex is a BM25F index over one user's documents of one kind. Postings hold
// each document's own term counts; a message's neighbours join at query time.
type kindIndex struct {
	window   int     // neighbours on each side (messages); 0 for memories
	nbWeight float64 // their weight

	docs     []lexDoc
	lens     []float64 // docs[i].ctxLen, packed: scoring reads it for every posting
	byID     map[string]int32
	free     []int32
	postings map[string][]posting
	convs    map[string]*convSeq
	n        int     // live documents
	totalLen float64 // Σ context length of live documents
}

type posting struct {
	doc int32
	tf  float32 // own count
}

// lexDoc is one document; about 150 bytes plus its distinct terms, since a
// million of them may be held (docs/BENCHMARKS.md "Search latency at scale").
type lexDoc struct {
	id      string
	alive   bool
	terms   string // own distinct terms, space-separated (for removal)
	ownLen  float64
	ctxLen  float64 // own length + nbWeight × neighbours' own lengths
	conv    *convSeq
	pos     int // in conv.docs
	convID  string
	at      int64 // Unix nanoseconds
	expires int64 // Unix nanoseconds; 0: never
	memType string
	speaker string
}

func unixNanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// convSeq is a conversation's documents in order (time said, then arrival).
type convSeq struct {
	docs []int32
}

func newKindIndex(window int, nbWeight float64) *kindIndex {
	if window <= 0 || nbWeight <= 0 {
		window, nbWeight = 0, 0
	}
	return &kindIndex{window: window, nbWeight: nbWeight, byID: map[string]int32{},
		postings: map[string][]posting{}, convs: map[string]*convSeq{}}
}

func (ki *kindIndex) speakerOf(id string) string {
	if slot, ok := ki.byID[id]; ok {
		return ki.docs[slot].speaker
	}
	return ""
}

// put adds or replaces a document.
func (ki *kindIndex) put(d *ports.LexicalDoc) {
	ki.remove(d.ID)
	var slot int32
	if n := len(ki.free); n > 0 {
		slot = ki.free[n-1]
		ki.free = ki.free[:n-1]
	} else {
		slot = int32(len(ki.docs))
		ki.docs = append(ki.docs, lexDoc{})
		ki.lens = append(ki.lens, 0)
	}
	counts := make(map[string]int32, len(d.Terms))
	distinct := make([]string, 0, len(d.Terms))
	for _, t := range d.Terms {
		if _, seen := counts[t]; !seen {
			distinct = append(distinct, t)
		}
		counts[t]++
	}
	for _, t := range distinct {
		ps, known := ki.postings[t]
		if !known {
			t = strings.Clone(t) // the key must not hold on to the whole text it was cut from
		}
		ki.postings[t] = append(ps, posting{doc: slot, tf: float32(counts[t])})
	}
	ki.docs[slot] = lexDoc{
		id: d.ID, alive: true, terms: strings.Join(distinct, " "), ownLen: float64(len(d.Terms)),
		convID: d.ConversationID, at: unixNanos(d.At), expires: unixNanos(d.ExpiresAt), memType: d.MemoryType, speaker: d.Speaker,
	}
	ki.byID[d.ID] = slot
	ki.n++
	doc := &ki.docs[slot]
	if ki.window == 0 || d.ConversationID == "" {
		doc.ctxLen = doc.ownLen
		ki.lens[slot] = doc.ctxLen
		ki.totalLen += doc.ctxLen
		return
	}
	conv := ki.convs[d.ConversationID]
	if conv == nil {
		conv = &convSeq{}
		ki.convs[d.ConversationID] = conv
	}
	pos := sort.Search(len(conv.docs), func(i int) bool { return ki.before(slot, conv.docs[i]) })
	conv.docs = append(conv.docs, 0)
	copy(conv.docs[pos+1:], conv.docs[pos:])
	conv.docs[pos] = slot
	for i := pos; i < len(conv.docs); i++ {
		ki.docs[conv.docs[i]].pos = i
	}
	doc.conv = conv
	ki.refreshContext(conv, pos-ki.window, pos+ki.window)
}

// before orders a conversation: by time said, then id (arrival order).
func (ki *kindIndex) before(a, b int32) bool {
	da, db := &ki.docs[a], &ki.docs[b]
	if da.at != db.at {
		return da.at < db.at
	}
	return da.id < db.id
}

// remove drops a document if present.
func (ki *kindIndex) remove(id string) {
	slot, ok := ki.byID[id]
	if !ok {
		return
	}
	doc := &ki.docs[slot]
	for term := range strings.SplitSeq(doc.terms, " ") {
		ps := ki.postings[term]
		for i := range ps {
			if ps[i].doc == slot {
				ps[i] = ps[len(ps)-1]
				ps = ps[:len(ps)-1]
				break
			}
		}
		if len(ps) == 0 {
			delete(ki.postings, term)
		} else {
			ki.postings[term] = ps
		}
	}
	ki.totalLen -= doc.ctxLen
	ki.n--
	if conv := doc.conv; conv != nil {
		pos := doc.pos
		conv.docs = append(conv.docs[:pos], conv.docs[pos+1:]...)
		for i := pos; i < len(conv.docs); i++ {
			ki.docs[conv.docs[i]].pos = i
		}
		if len(conv.docs) == 0 {
			delete(ki.convs, doc.convID)
		} else {
			ki.refreshContext(conv, pos-ki.window, pos+ki.window-1)
		}
	}
	delete(ki.byID, id)
	*doc = lexDoc{}
	ki.lens[slot] = 0
	ki.free = append(ki.free, slot)
	if ki.n == 0 {
		ki.totalLen = 0 // no drift from float sums once empty
	}
}

// refreshContext recomputes the context length of the conversation's documents
// at positions lo..hi (clipped).
func (ki *kindIndex) refreshContext(conv *convSeq, lo, hi int) {
	lo, hi = max(lo, 0), min(hi, len(conv.docs)-1)
	for p := lo; p <= hi; p++ {
		doc := &ki.docs[conv.docs[p]]
		ctx := doc.ownLen
		for j := max(0, p-ki.window); j <= min(len(conv.docs)-1, p+ki.window); j++ {
			if j != p {
				ctx += ki.nbWeight * ki.docs[conv.docs[j]].ownLen
			}
		}
		ki.totalLen += ctx - doc.ctxLen
		doc.ctxLen = ctx
		ki.lens[conv.docs[p]] = ctx
	}
}

package retrieval

import (
	"container/list"
	"context"
	"sort"
	"strings"
	"sync"
	"time"

	"engram/domain/memory"
	"engram/domain/ranking"
	"engram/ports"
)

// Lexical search: BM25 over each user's analysed documents, as measured in
// docs/BENCHMARKS.md ("Retrieval quality: LoCoMo"), answered from per-user
// in-memory indexes that follow the LexicalIndex store by generations.
//
// Why in memory: one user with 100k memories whose query shares a common word
// ("user", "like") with most of them must score ~100k postings per search. Reading
// them from SQL costs tens of milliseconds; scoring them from memory costs about
// one (docs/BENCHMARKS.md "Search latency at scale"). The store stays the truth
// that every process reads: each search asks the store for the user's generation
// (one indexed row) and applies the changes after the generation it has, so a
// write committed by any process is seen by the next search anywhere.
//
// A message's neighbour context (ranking.ContextFields: ±NeighbourWindow messages
// of its conversation at NeighbourWeight) is added at query time from the
// conversation's order, not stored: a neighbour that arrives later changes it
// without rewriting anything, and the numbers equal ranking.Index's over
// ContextFields.

// DefaultMaxCachedDocs bounds the documents kept in memory across users; the least
// recently searched users are dropped beyond it and reloaded on their next search.
const DefaultMaxCachedDocs = 2_000_000

// lexicalQuery is one search of one kind of document of one user.
type lexicalQuery struct {
	Kind           ports.LexicalKind
	Terms          []string // analysed query, repeats kept
	Types          []string // memory types; empty: all
	ConversationID string
	Since, Until   time.Time // since inclusive, until exclusive; zero: unbounded
	Now            time.Time // memories expired at Now are left out
	Limit          int
	// Only, when not nil, keeps just these documents (full_inject scores the
	// memories it already chose).
	Only map[string]bool
}

func (q *lexicalQuery) match(d *lexDoc) bool {
	switch {
	case q.Only != nil && !q.Only[d.id]:
		return false
	case d.expires != 0 && q.Now.UnixNano() >= d.expires:
		return false
	case len(q.Types) > 0 && !containsString(q.Types, d.memType):
		return false
	case q.ConversationID != "" && d.convID != q.ConversationID:
		return false
	case !q.Since.IsZero() && d.at < q.Since.UnixNano():
		return false
	case !q.Until.IsZero() && d.at >= q.Until.UnixNano():
		return false
	}
	return true
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// lexicalSearcher holds the users' indexes.
type lexicalSearcher struct {
	store   ports.LexicalIndex
	recipe  ranking.Recipe
	maxDocs int

	mu    sync.Mutex
	users map[memory.Scope]*userIndex
	lru   *list.List // of *userIndex, most recently used first
	docs  int        // documents held across users
}

func newLexicalSearcher(store ports.LexicalIndex, recipe ranking.Recipe, maxDocs int) *lexicalSearcher {
	if maxDocs <= 0 {
		maxDocs = DefaultMaxCachedDocs
	}
	return &lexicalSearcher{store: store, recipe: recipe, maxDocs: maxDocs,
		users: map[memory.Scope]*userIndex{}, lru: list.New()}
}

// userIndex is one user's documents, one index per kind.
type userIndex struct {
	scope    memory.Scope
	mu       sync.RWMutex
	gen      int64
	loaded   bool
	memories *kindIndex
	messages *kindIndex
	elem     *list.Element
	size     int // documents, as counted in lexicalSearcher.docs
}

func (u *userIndex) kind(k ports.LexicalKind) *kindIndex {
	if k == ports.LexicalMessage {
		return u.messages
	}
	return u.memories
}

// acquire returns the user's index, caught up with the store and read-locked; the
// caller must RUnlock it.
func (ls *lexicalSearcher) acquire(ctx context.Context, scope memory.Scope) (*userIndex, error) {
	gen, err := ls.store.LexicalGeneration(ctx, scope)
	if err != nil {
		return nil, err
	}
	u := ls.entry(scope)
	u.mu.RLock()
	if u.loaded && u.gen >= gen && (gen > 0 || u.gen == 0) {
		return u, nil
	}
	u.mu.RUnlock()

	u.mu.Lock()
	// A generation below the one held means the user was erased since: the store
	// answers with a Reset, as it does for a reader behind its compaction horizon.
	if !u.loaded || u.gen != gen {
		changes, err := ls.store.LexicalChangesSince(ctx, scope, u.gen)
		if err != nil {
			u.mu.Unlock()
			return nil, err
		}
		if changes.Reset {
			u.memories = newKindIndex(0, 0)
			u.messages = newKindIndex(ls.recipe.NeighbourWindow, ls.recipe.NeighbourWeight)
			u.gen = 0
		}
		for _, ref := range changes.Deleted {
			u.kind(ref.Kind).remove(ref.ID)
		}
		for i := range changes.Docs {
			u.kind(changes.Docs[i].Kind).put(&changes.Docs[i])
		}
		u.gen = max(u.gen, changes.Generation)
		if !changes.Reset {
			u.gen = max(u.gen, gen)
		}
		u.loaded = true
	}
	size := u.memories.n + u.messages.n
	u.mu.Unlock()
	ls.resize(u, size)
	u.mu.RLock()
	return u, nil
}

// entry finds or creates the user's index and marks it most recently used.
func (ls *lexicalSearcher) entry(scope memory.Scope) *userIndex {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	u, ok := ls.users[scope]
	if !ok {
		u = &userIndex{
			scope:    scope,
			memories: newKindIndex(0, 0),
			messages: newKindIndex(ls.recipe.NeighbourWindow, ls.recipe.NeighbourWeight),
		}
		ls.users[scope] = u
		u.elem = ls.lru.PushFront(u)
		return u
	}
	ls.lru.MoveToFront(u.elem)
	return u
}

// resize records the user's size and drops least recently used users past the
// budget (never the one just used).
func (ls *lexicalSearcher) resize(u *userIndex, size int) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.users[u.scope] != u {
		return // dropped meanwhile; it lives on for the searches holding it
	}
	ls.docs += size - u.size
	u.size = size
	for ls.docs > ls.maxDocs {
		last := ls.lru.Back()
		if last == nil || last.Value.(*userIndex) == u {
			break
		}
		victim := last.Value.(*userIndex)
		ls.lru.Remove(last)
		delete(ls.users, victim.scope)
		ls.docs -= victim.size
	}
}

// size is how many documents the cache holds.
func (ls *lexicalSearcher) size() int {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.docs
}

// search runs q against the user's index. speakers returns the speaker term of
// documents of the user (for the boost of lists from other retrievers).
func (ls *lexicalSearcher) search(ctx context.Context, scope memory.Scope, q lexicalQuery) ([]ranking.Scored, func(id string) string, error) {
	u, err := ls.acquire(ctx, scope)
	if err != nil {
		return nil, nil, err
	}
	defer u.mu.RUnlock()
	ki := u.kind(q.Kind)
	items := ki.search(&q, ls.recipe.BM25)
	speakers := map[string]string{}
	for _, it := range items {
		if s := ki.speakerOf(it.ID); s != "" {
			speakers[it.ID] = s
		}
	}
	return items, func(id string) string { return speakers[id] }, nil
}

// speakersOf returns the speaker terms of the user's messages with these ids.
func (ls *lexicalSearcher) speakersOf(ctx context.Context, scope memory.Scope, ids []string) (map[string]string, error) {
	u, err := ls.acquire(ctx, scope)
	if err != nil {
		return nil, err
	}
	defer u.mu.RUnlock()
	out := make(map[string]string, len(ids))
	for _, id := range ids {
		if s := u.messages.speakerOf(id); s != "" {
			out[id] = s
		}
	}
	return out, nil
}

// ---------------------------------------------------------------- one kind's index

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

// scratch is a search's per-document buffers, reused across searches.
type scratch struct {
	acc     []float64 // the current term's weighted frequency
	score   []float64
	hit     []bool
	touched []int32
	matched []int32
}

var scratchPool = sync.Pool{New: func() any { return &scratch{} }}

func (s *scratch) reset(n int) {
	if cap(s.acc) < n {
		s.acc = make([]float64, n)
		s.score = make([]float64, n)
		s.hit = make([]bool, n)
	}
	s.acc, s.score, s.hit = s.acc[:n], s.score[:n], s.hit[:n]
	s.touched, s.matched = s.touched[:0], s.matched[:0]
}

// search scores every document that shares a term with the query (in its own
// text or its neighbours') with BM25 as ranking.Index does over ContextFields,
// keeps those that pass the filters and returns the best q.Limit, highest score
// first, ties by id (arrival order).
func (ki *kindIndex) search(q *lexicalQuery, bm ranking.BM25) []ranking.Scored {
	if ki.n == 0 || len(q.Terms) == 0 {
		return nil
	}
	avg := ki.totalLen / float64(ki.n)
	type qterm struct {
		term  string
		count float64
	}
	var terms []qterm
	seen := make(map[string]int, len(q.Terms))
	for _, t := range q.Terms {
		if i, ok := seen[t]; ok {
			terms[i].count++
			continue
		}
		seen[t] = len(terms)
		terms = append(terms, qterm{t, 1})
	}
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	s.reset(len(ki.docs))
	add := func(doc int32, v float64) {
		if s.acc[doc] == 0 {
			s.touched = append(s.touched, doc)
		}
		s.acc[doc] += v
	}
	for _, qt := range terms {
		ps := ki.postings[qt.term]
		if len(ps) == 0 {
			continue
		}
		if ki.window == 0 {
			// No neighbours: each posting is its document's whole frequency, and
			// the document frequency is the list's length.
			idf := ranking.IDF(len(ps), ki.n)
			for _, p := range ps {
				s.score[p.doc] += qt.count * bm.TermScore(idf, float64(p.tf), ki.lens[p.doc], avg)
				if !s.hit[p.doc] {
					s.hit[p.doc] = true
					s.matched = append(s.matched, p.doc)
				}
			}
			continue
		}
		s.touched = s.touched[:0]
		for _, p := range ps {
			tf := float64(p.tf)
			add(p.doc, tf)
			if ki.window == 0 {
				continue
			}
			d := &ki.docs[p.doc]
			if d.conv == nil {
				continue
			}
			for j := max(0, d.pos-ki.window); j <= min(len(d.conv.docs)-1, d.pos+ki.window); j++ {
				if j != d.pos {
					add(d.conv.docs[j], ki.nbWeight*tf)
				}
			}
		}
		idf := ranking.IDF(len(s.touched), ki.n)
		for _, doc := range s.touched {
			s.score[doc] += qt.count * bm.TermScore(idf, s.acc[doc], ki.lens[doc], avg)
			s.acc[doc] = 0
			if !s.hit[doc] {
				s.hit[doc] = true
				s.matched = append(s.matched, doc)
			}
		}
	}
	top := newTopScored(q.Limit)
	for _, doc := range s.matched {
		d := &ki.docs[doc]
		if d.alive && q.match(d) {
			top.offer(ranking.Scored{ID: d.id, Score: s.score[doc]})
		}
		s.score[doc], s.hit[doc] = 0, false
	}
	return top.sorted()
}

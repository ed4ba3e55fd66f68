package indexing

import (
	"container/list"
	"context"
	"sync"
	"time"

	"engram/domain/memory"
	"engram/ports"
)

// Defaults of Handoff.
const (
	DefaultHandoffSize = 1024
	DefaultHandoffTTL  = 10 * time.Minute
)

// Handoff passes vectors from extraction to the indexer in the same process, so a
// text is embedded once. Extraction embeds its candidates through Producer, by
// the text the memory will be indexed by; the indexer (and any other reader)
// embeds through Consumer, which answers a text the producer embedded from the
// kept vector, by its text hash, and embeds only the rest. Kept vectors are taken
// when used, and dropped after TTL or when Size are kept, so the handoff stays
// small; a miss only costs the embedding it would have cost anyway. Processes
// that run extraction and the indexer apart embed twice.
type Handoff struct {
	next ports.Embedder
	size int
	ttl  time.Duration
	now  func() time.Time

	mu      sync.Mutex
	entries map[string]*list.Element // text hash → element of order
	order   *list.List               // of *kept, oldest first
	reused  int64
}

type kept struct {
	hash   string
	vector []float32
	at     time.Time
}

// NewHandoff wraps next; size ≤ 0 and ttl ≤ 0 take the defaults, clock nil the
// system's.
func NewHandoff(next ports.Embedder, size int, ttl time.Duration, clock ports.Clock) *Handoff {
	if size <= 0 {
		size = DefaultHandoffSize
	}
	if ttl <= 0 {
		ttl = DefaultHandoffTTL
	}
	now := time.Now
	if clock != nil {
		now = clock.Now
	}
	return &Handoff{next: next, size: size, ttl: ttl, now: now, entries: map[string]*list.Element{}, order: list.New()}
}

// Producer embeds through the wrapped embedder and keeps the vectors for Consumer.
func (h *Handoff) Producer() ports.Embedder { return producer{h} }

// Consumer answers kept texts from the handoff and embeds the others.
func (h *Handoff) Consumer() ports.Embedder { return consumer{h} }

// Reused counts the texts Consumer answered without embedding them.
func (h *Handoff) Reused() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.reused
}

type producer struct{ h *Handoff }

func (p producer) Model() string  { return p.h.next.Model() }
func (p producer) Dimension() int { return p.h.next.Dimension() }

func (p producer) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	vecs, err := p.h.next.Embed(ctx, texts)
	if err != nil || len(vecs) != len(texts) {
		return vecs, err
	}
	p.h.keep(texts, vecs)
	return vecs, nil
}

type consumer struct{ h *Handoff }

func (c consumer) Model() string  { return c.h.next.Model() }
func (c consumer) Dimension() int { return c.h.next.Dimension() }

func (c consumer) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var (
		missing []string
		at      []int
	)
	for i, t := range texts {
		if v, ok := c.h.take(t); ok {
			out[i] = v
			continue
		}
		missing = append(missing, t)
		at = append(at, i)
	}
	if len(missing) == 0 {
		return out, nil
	}
	vecs, err := c.h.next.Embed(ctx, missing)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(missing) {
		return vecs, nil // the caller checks the count and reports it
	}
	for k, i := range at {
		out[i] = vecs[k]
	}
	return out, nil
}

func (h *Handoff) keep(texts []string, vecs [][]float32) {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.now()
	for i, t := range texts {
		hash := memory.TextHash(t)
		if el, ok := h.entries[hash]; ok {
			h.order.Remove(el)
		}
		h.entries[hash] = h.order.PushBack(&kept{hash: hash, vector: vecs[i], at: now})
	}
	for h.order.Len() > h.size {
		h.drop(h.order.Front())
	}
}

func (h *Handoff) take(text string) ([]float32, bool) {
	hash := memory.TextHash(text)
	h.mu.Lock()
	defer h.mu.Unlock()
	for el := h.order.Front(); el != nil && h.now().Sub(el.Value.(*kept).at) > h.ttl; el = h.order.Front() {
		h.drop(el)
	}
	el, ok := h.entries[hash]
	if !ok {
		return nil, false
	}
	v := el.Value.(*kept).vector
	h.drop(el)
	h.reused++
	return v, true
}

func (h *Handoff) drop(el *list.Element) {
	delete(h.entries, el.Value.(*kept).hash)
	h.order.Remove(el)
}

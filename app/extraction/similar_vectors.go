package extraction

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"engram/domain/candidate"
	"engram/domain/memory"
	"engram/ports"
)

// MemoriesByID reads memories of a user by id (adapters/sqlstore and
// adapters/memstore implement it on their memory stores).
type MemoriesByID interface {
	MemoriesByID(ctx context.Context, scope memory.Scope, ids []string) ([]memory.Memory, error)
}

// Defaults of VectorSimilar.
const (
	DefaultVectorNeighbours = 5
	DefaultVectorTimeout    = 2 * time.Second
)

// VectorSimilar finds the memories candidates should be compared with by meaning:
// each candidate is embedded as the vector index embeds memories (seed 000's
// "[type] key: content") and its nearest live memories by cosine are read from the
// truth store, so a duplicate is found among all of a user's memories, not only
// the first ScanLimit by key that LexicalSimilar reads. Memories with a
// candidate's key are always included. When the embedder or the index fails (or
// exceeds Timeout), Fallback answers instead, so extraction never fails for want
// of vectors. A memory written moments ago and not yet embedded is only found
// through its key or the fallback.
type VectorSimilar struct {
	Embedder ports.Embedder
	Vectors  ports.VectorIndex
	Store    ports.MemoryStore
	Reader   MemoriesByID
	Fallback SimilarMemories // LexicalSimilar over Store when nil
	// PerCandidate is how many nearest memories each candidate brings; 0: 5.
	PerCandidate int
	// Timeout bounds the embedding and the searches together; 0: 2 s.
	Timeout time.Duration
	Logger  *slog.Logger
}

var _ SimilarMemories = (*VectorSimilar)(nil)

// Similar returns the memories with a candidate's key, then each candidate's
// nearest live memories, without repeats.
func (v *VectorSimilar) Similar(ctx context.Context, scope memory.Scope, cands []candidate.Candidate, now time.Time) ([]memory.Memory, error) {
	out, err := v.nearest(ctx, scope, cands, now)
	if err == nil {
		return out, nil
	}
	if ctx.Err() != nil {
		return nil, err
	}
	log := v.Logger
	if log == nil {
		log = slog.Default()
	}
	log.WarnContext(ctx, "similar memories by vectors failed; comparing lexically", "error", err)
	fallback := v.Fallback
	if fallback == nil {
		fallback = &LexicalSimilar{Store: v.Store}
	}
	return fallback.Similar(ctx, scope, cands, now)
}

func (v *VectorSimilar) nearest(ctx context.Context, scope memory.Scope, cands []candidate.Candidate, now time.Time) ([]memory.Memory, error) {
	per, timeout := v.PerCandidate, v.Timeout
	if per <= 0 {
		per = DefaultVectorNeighbours
	}
	if timeout <= 0 {
		timeout = DefaultVectorTimeout
	}
	var out []memory.Memory
	seen := map[string]bool{}
	texts := make([]string, 0, len(cands))
	for _, c := range cands {
		key, err := memory.ParseKey(c.Key)
		if err != nil {
			texts = append(texts, c.Content)
			continue
		}
		texts = append(texts, "["+string(c.Type)+"] "+key.String()+": "+c.Content)
		m, err := v.Store.Get(ctx, scope, key)
		if err != nil {
			if isNotFound(err) {
				continue
			}
			return nil, err
		}
		if !seen[m.ID()] {
			seen[m.ID()] = true
			out = append(out, m)
		}
	}
	if len(texts) == 0 {
		return out, nil
	}
	vctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	vecs, err := v.Embedder.Embed(vctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embed candidates: %w", err)
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("embed candidates: %d vectors for %d texts", len(vecs), len(texts))
	}
	var ids []string
	for _, vec := range vecs {
		hits, err := v.Vectors.Search(vctx, ports.VectorQuery{Tenant: scope.Tenant, User: scope.User,
			Kinds: []memory.Kind{memory.KindMemory}, Vector: vec, Limit: per})
		if err != nil {
			return nil, fmt.Errorf("search similar memories: %w", err)
		}
		for _, h := range hits {
			if !seen[h.ID] {
				seen[h.ID] = true
				ids = append(ids, h.ID)
			}
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	found, err := v.Reader.MemoriesByID(ctx, scope, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]memory.Memory, len(found))
	for _, m := range found {
		byID[m.ID()] = m
	}
	for _, id := range ids { // nearest first
		if m, ok := byID[id]; ok && m.IsLive(now) {
			out = append(out, m)
		}
	}
	return out, nil
}

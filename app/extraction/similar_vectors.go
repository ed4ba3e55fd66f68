package extraction

import (
	"context"
	"engram/domain/ranking"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"engram/domain/candidate"
	"engram/domain/memory"
	"engram/ports"
)

// MemoriesByID reads memories of a user by id (adapters/sqlstore implements it
// on its memory store).
type MemoriesByID interface {
	MemoriesByID(ctx context.Context, scope memory.Scope, ids []string) ([]memory.Memory, error)
}

// Defaults of VectorSimilar.
const (
	DefaultVectorNeighbours = 5
	DefaultVectorTimeout    = 2 * time.Second
)

// VectorSimilar finds the memories candidates should be compared with by meaning.
// Only the candidates are embedded, by the text the vector index embeds memories
// with (memory.IndexTextOf); their nearest live memories come from the vectors
// the index already stores, with the cosine of each, so a user's existing
// memories are never embedded again and a duplicate is found among all of them,
// not only the first ScanLimit by key that LexicalSimilar reads. Memories with a
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
	// Cosine scores pairs by the vectors' cosine (an embedding model: its
	// paraphrases score high); false scores them by candidate.Similarity, for the
	// offline embedder, whose cosines measure word overlap on another scale (see
	// docs/BENCHMARKS.md) and would misplace the thresholds.
	Cosine bool
	// PerCandidate is how many nearest memories each candidate brings; 0: 5.
	PerCandidate int
	// Timeout bounds the embedding and the searches together; 0: 2 s.
	Timeout time.Duration
	Logger  *slog.Logger
}

var _ SimilarMemories = (*VectorSimilar)(nil)

// Similar returns the memories with a candidate's key, then each candidate's
// nearest live memories, without repeats, and their scores.
func (v *VectorSimilar) Similar(ctx context.Context, scope memory.Scope, cands []candidate.Candidate, now time.Time) (candidate.Neighbourhood, error) {
	n, err := v.nearest(ctx, scope, cands, now)
	if err == nil {
		return n, nil
	}
	if ctx.Err() != nil {
		return candidate.Neighbourhood{}, err
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

func (v *VectorSimilar) nearest(ctx context.Context, scope memory.Scope, cands []candidate.Candidate, now time.Time) (candidate.Neighbourhood, error) {
	per, timeout := v.PerCandidate, v.Timeout
	if per <= 0 {
		per = DefaultVectorNeighbours
	}
	if timeout <= 0 {
		timeout = DefaultVectorTimeout
	}
	existing, seen, err := keyMatches(ctx, v.Store, scope, cands)
	if err != nil {
		return candidate.Neighbourhood{}, err
	}
	if len(cands) == 0 {
		return candidate.Neighbourhood{Existing: existing, Lexical: !v.Cosine}, nil
	}
	vctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	vecs, err := v.Embedder.Embed(vctx, CandidateTexts(cands))
	if err != nil {
		return candidate.Neighbourhood{}, fmt.Errorf("embed candidates: %w", err)
	}
	if len(vecs) != len(cands) {
		return candidate.Neighbourhood{}, fmt.Errorf("embed candidates: %d vectors for %d texts", len(vecs), len(cands))
	}
	hits, ids, err := v.search(vctx, scope, vecs, per, seen)
	if err != nil {
		return candidate.Neighbourhood{}, err
	}
	if existing, err = v.read(ctx, scope, ids, existing, now); err != nil {
		return candidate.Neighbourhood{}, err
	}
	if !v.Cosine {
		return lexicalNeighbourhood(cands, existing), nil
	}
	return cosineNeighbourhood(vecs, hits, existing), nil
}

// search asks the index for each vector's nearest memories of the user: the
// cosine of each hit per candidate, and the ids not seen before, nearest first.
func (v *VectorSimilar) search(ctx context.Context, scope memory.Scope, vecs [][]float32, per int, seen map[string]bool) ([]map[string]float64, []string, error) {
	hits := make([]map[string]float64, len(vecs)) // candidate → memory id → cosine
	var ids []string
	for i, vec := range vecs {
		found, err := v.Vectors.Search(ctx, ports.VectorQuery{Tenant: scope.Tenant, User: scope.User,
			Kinds: []memory.Kind{memory.KindMemory}, Vector: vec, Limit: per})
		if err != nil {
			return nil, nil, fmt.Errorf("search similar memories: %w", err)
		}
		hits[i] = make(map[string]float64, len(found))
		for _, h := range found {
			hits[i][h.ID] = h.Score
			if !seen[h.ID] {
				seen[h.ID] = true
				ids = append(ids, h.ID)
			}
		}
	}
	return hits, ids, nil
}

// read appends the live memories of ids (in their order) to existing, from the
// truth store: the index decides what to compare, never what is true.
func (v *VectorSimilar) read(ctx context.Context, scope memory.Scope, ids []string, existing []memory.Memory, now time.Time) ([]memory.Memory, error) {
	if len(ids) == 0 {
		return existing, nil
	}
	found, err := v.Reader.MemoriesByID(ctx, scope, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]memory.Memory, len(found))
	for _, m := range found {
		byID[m.ID()] = m
	}
	for _, id := range ids {
		if m, ok := byID[id]; ok && m.IsLive(now) {
			existing = append(existing, m)
		}
	}
	return existing, nil
}

// cosineNeighbourhood scores candidates against memories by the index's cosines
// (0 for a pair the search did not return: not among the candidate's nearest)
// and against each other by their vectors.
func cosineNeighbourhood(vecs [][]float32, hits []map[string]float64, existing []memory.Memory) candidate.Neighbourhood {
	n := candidate.Neighbourhood{Existing: existing, Alike: make([][]float64, len(vecs)), Among: make([][]float64, len(vecs))}
	for i := range vecs {
		n.Alike[i] = make([]float64, len(existing))
		for j, m := range existing {
			n.Alike[i][j] = clamp01(hits[i][m.ID()])
		}
		n.Among[i] = make([]float64, len(vecs))
		for k := range vecs {
			n.Among[i][k] = clamp01(ranking.Cosine(vecs[i], vecs[k]))
		}
	}
	return n
}

// CandidateTexts are what the candidates are embedded by: a memory's index text
// when the key is valid (so the indexer can reuse the vector once the candidate is
// written as proposed), the content alone otherwise.
func CandidateTexts(cands []candidate.Candidate) []string {
	texts := make([]string, len(cands))
	for i, c := range cands {
		content := strings.TrimSpace(c.Content)
		if key, err := memory.ParseKey(c.Key); err == nil {
			texts[i] = memory.IndexTextOf(c.Type, key, content)
		} else {
			texts[i] = content
		}
	}
	return texts
}

func clamp01(x float64) float64 { return min(max(x, 0), 1) }

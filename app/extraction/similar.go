package extraction

import (
	"context"
	"slices"
	"time"

	"engram/domain/candidate"
	"engram/domain/memory"
	"engram/ports"
)

// SimilarMemories finds the user's existing memories the candidates of a run must
// be compared with (those with a candidate's key, and the most alike a candidate's
// content) and scores every pair: the collision check, stage 2 and stage 3 all
// read this one neighbourhood, so nothing is embedded or scored twice.
type SimilarMemories interface {
	Similar(ctx context.Context, scope memory.Scope, cands []candidate.Candidate, now time.Time) (candidate.Neighbourhood, error)
}

// Defaults of LexicalSimilar.
const (
	DefaultScanLimit    = 500
	DefaultPerCandidate = 5
)

// LexicalSimilar compares candidates with the user's live memories by
// candidate.Similarity. It reads at most ScanLimit memories (the first by key), so
// its cost is bounded for users with very many memories; memories with a
// candidate's key are always found, live or not.
type LexicalSimilar struct {
	Store        ports.MemoryStore
	ScanLimit    int // 0: DefaultScanLimit (at most 1000, a listing page)
	PerCandidate int // most similar memories kept per candidate; 0: DefaultPerCandidate
}

// Similar returns the memories with a candidate's key, then the PerCandidate most
// similar live memories of each candidate (similarity above 0), without repeats,
// scored lexically.
func (l *LexicalSimilar) Similar(ctx context.Context, scope memory.Scope, cands []candidate.Candidate, now time.Time) (candidate.Neighbourhood, error) {
	scan, per := l.ScanLimit, l.PerCandidate
	if scan <= 0 {
		scan = DefaultScanLimit
	}
	if per <= 0 {
		per = DefaultPerCandidate
	}
	out, seen, err := keyMatches(ctx, l.Store, scope, cands)
	if err != nil {
		return candidate.Neighbourhood{}, err
	}
	page, err := l.Store.List(ctx, scope, ports.MemoryQuery{Limit: min(scan, 1000), Now: now})
	if err != nil {
		return candidate.Neighbourhood{}, err
	}
	type scored struct {
		m     memory.Memory
		score float64
	}
	for _, c := range cands {
		var best []scored
		for _, m := range page.Items {
			if s := candidate.Similarity(c.Content, m.Content()); s > 0 {
				best = append(best, scored{m, s})
			}
		}
		slices.SortStableFunc(best, func(a, b scored) int {
			switch {
			case a.score > b.score:
				return -1
			case a.score < b.score:
				return 1
			}
			return 0
		})
		for i := 0; i < len(best) && i < per; i++ {
			if id := best[i].m.ID(); !seen[id] {
				seen[id] = true
				out = append(out, best[i].m)
			}
		}
	}
	return lexicalNeighbourhood(cands, out), nil
}

// keyMatches reads the memories with a candidate's key, live or not.
func keyMatches(ctx context.Context, store ports.MemoryStore, scope memory.Scope, cands []candidate.Candidate) ([]memory.Memory, map[string]bool, error) {
	var out []memory.Memory
	seen := map[string]bool{}
	for _, c := range cands {
		key, err := memory.ParseKey(c.Key)
		if err != nil {
			continue
		}
		m, err := store.Get(ctx, scope, key)
		if err != nil {
			if isNotFound(err) {
				continue
			}
			return nil, nil, err
		}
		if !seen[m.ID()] {
			seen[m.ID()] = true
			out = append(out, m)
		}
	}
	return out, seen, nil
}

// lexicalNeighbourhood scores every candidate against every memory and every other
// candidate by candidate.Similarity.
func lexicalNeighbourhood(cands []candidate.Candidate, existing []memory.Memory) candidate.Neighbourhood {
	n := candidate.Neighbourhood{Existing: existing, Lexical: true,
		Alike: make([][]float64, len(cands)), Among: make([][]float64, len(cands))}
	for i, c := range cands {
		n.Alike[i] = make([]float64, len(existing))
		for j, m := range existing {
			n.Alike[i][j] = candidate.Similarity(c.Content, m.Content())
		}
		n.Among[i] = make([]float64, len(cands))
		for k, o := range cands {
			n.Among[i][k] = candidate.Similarity(c.Content, o.Content)
		}
	}
	return n
}

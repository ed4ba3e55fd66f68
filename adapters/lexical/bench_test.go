package lexical

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"engram/domain/memory"
	"engram/domain/ranking"
	"engram/ports"
)

// benchIndex is one user's 100,000 memories of 3–8 words, each with "user" and one
// of ten verbs, the worst case of docs/BENCHMARKS.md "Search latency at scale".
func benchIndex() (*kindIndex, []string) {
	rng := rand.New(rand.NewPCG(1, 1))
	verbs := []string{"like", "love", "enjoy", "prefer", "hate", "want", "need", "use", "visit", "read"}
	ki := newKindIndex(0, 0)
	ids := make([]string, 100_000)
	for i := range ids {
		terms := []string{"user", verbs[rng.IntN(len(verbs))]}
		for range 1 + rng.IntN(6) {
			terms = append(terms, fmt.Sprintf("w%d", int(20000*rng.Float64()*rng.Float64())))
		}
		ids[i] = fmt.Sprintf("m%06d", i)
		ki.put(&ports.LexicalDoc{Kind: memory.KindMemory, ID: ids[i], Terms: terms, At: time.Unix(int64(i), 0)})
	}
	return ki, ids
}

// go test ./adapters/lexical -run '^$' -bench SearchMemories
func BenchmarkSearchMemories(b *testing.B) {
	ki, ids := benchIndex()
	query := []string{"user", "like", "w12", "w345"}
	only := ids[:0:0]
	for i := 0; i < len(ids); i += len(ids) / 100 {
		only = append(only, ids[i])
	}
	for _, tt := range []struct {
		name string
		q    ports.LexicalQuery
	}{
		{"top100", ports.LexicalQuery{Limit: 100}},
		{"only100", ports.LexicalQuery{Only: only}},
	} {
		b.Run(tt.name, func(b *testing.B) {
			for b.Loop() {
				ki.search(newFilter(&tt.q), query, tt.q.Limit, ranking.DefaultRecipe)
			}
		})
	}
}

package main

import (
	"context"
	"strings"

	"engram/adapters/textanalysis"
	"engram/domain/conversation"
	"engram/domain/ranking"
)

// baselineBM25 is the reference of ../shared/datasets/README.md: plain BM25 (k1 1.2,
// b 0.75) over lower-cased alphanumeric tokens without English stop words, the
// session date appended to each turn. No stemming, no CJK, no neighbours.
type baselineBM25 struct {
	index *ranking.Index
}

func newBaselineBM25() Retriever { return &baselineBM25{} }

func (b *baselineBM25) Index(_ context.Context, turns []Turn) error {
	b.index = ranking.NewIndex(ranking.BM25{K1: 1.2, B: 0.75})
	for _, t := range turns {
		text := t.Text() + " " + t.At.Format(conversation.DateLayout)
		b.index.Add(t.ID, ranking.Field{Terms: plainTokens(text), Weight: 1})
	}
	return nil
}

func (b *baselineBM25) Search(_ context.Context, question string, k int) ([]string, error) {
	return ids(b.index.Search(plainTokens(question), k)), nil
}

// plainTokens splits lower-cased text into runs of a-z and 0-9 and drops stop words.
func plainTokens(text string) []string {
	fields := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	out := fields[:0]
	for _, f := range fields {
		if !textanalysis.IsStopWord(f) {
			out = append(out, f)
		}
	}
	return out
}

func ids(scored []ranking.Scored) []string {
	out := make([]string, len(scored))
	for i, s := range scored {
		out[i] = s.ID
	}
	return out
}

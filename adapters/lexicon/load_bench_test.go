package lexicon

import (
	"bytes"
	"compress/gzip"
	"testing"

	"engram/adapters/textanalysis"
)

func BenchmarkParseTable(b *testing.B) {
	for range b.N {
		if _, err := parseTable(tableGz); err != nil {
			b.Fatal(err)
		}
	}
}

var benchQuestions = []string{
	"which medicine must I avoid?", "What food should I eat at the dinner party?", "Which town am I based in?",
	"我住哪里", "她对什么过敏？", "我周末做什么运动？", "What kind of animal do I own?", "我平时有什么爱好？",
}

// BenchmarkExpand is the cost a search pays for its expansion (the table loaded).
func BenchmarkExpand(b *testing.B) {
	e := New(textanalysis.New(textanalysis.Options{}), Weights{})
	if err := e.Load(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		e.Expand(benchQuestions[i%len(benchQuestions)])
	}
}

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

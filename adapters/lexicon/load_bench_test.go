package lexicon

import "testing"

func BenchmarkParseTable(b *testing.B) {
	for range b.N {
		if _, err := parseTable(tableGz); err != nil {
			b.Fatal(err)
		}
	}
}

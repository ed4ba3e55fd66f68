package instruction

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The gates are an optimisation only: on every text of the rules and of the
// labelled sets, each pattern finds through its gate exactly the matches a plain
// scan finds.
func TestGate_findsWhatAPlainScanFinds(t *testing.T) {
	t.Parallel()
	var texts []string
	for _, r := range rules {
		texts = append(texts, r.Examples...)
		texts = append(texts, r.CounterExamples...)
	}
	files, _ := filepath.Glob("testdata/*.jsonl")
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			var l struct {
				Text string `json:"text"`
			}
			if json.Unmarshal(sc.Bytes(), &l) == nil && l.Text != "" {
				texts = append(texts, l.Text)
			}
		}
		fh.Close()
	}
	if len(texts) < 500 {
		t.Fatalf("only %d texts", len(texts))
	}
	checked := 0
	for _, text := range texts {
		norm := normalize(text)
		idx := indexKeys(lowerASCII(norm))
		for i := range rules {
			var all []pattern
			all = append(all, rules[i].patterns...)
			for _, g := range rules[i].allOf {
				all = append(all, g...)
			}
			for _, p := range all {
				got := p.gate.findAll(p.re, norm, 0, len(norm), idx)
				want := p.re.FindAllStringIndex(norm, -1)
				if !slices.EqualFunc(got, want, slices.Equal) {
					t.Errorf("%s/%s %q on %q: gated %v, plain %v", rules[i].Lang, rules[i].Name, p.re, norm, got, want)
				}
				checked++
			}
		}
	}
	t.Logf("%d pattern runs compared on %d texts", checked, len(texts))
}

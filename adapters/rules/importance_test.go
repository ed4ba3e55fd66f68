package rules_test

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"engram/adapters/rules"
	"engram/domain/candidate"
)

// importancePath is the hand-labelled importance set: one user message a line,
// English and Chinese, the key (prefix) of the fact it states and its band: "high"
// for what the assistant must never get wrong (health, allergies, diet, safety,
// reply language and style, explicit always/never rules: importance ≥ 4), "low"
// for small talk (likes, dislikes, favourites, habits: ≤ 3).
const importancePath = "testdata/importance.jsonl"

type importanceLine struct {
	Text      string `json:"text"`
	Lang      string `json:"lang"`
	KeyPrefix string `json:"key_prefix"`
	Band      string `json:"band"`
}

// TestImportance_agreement measures how often the rule extractor's importance
// falls in the labelled band, per language, and fails under the floor. A line
// whose fact is not found counts as a disagreement.
func TestImportance_agreement(t *testing.T) {
	t.Parallel()
	f, err := os.Open(importancePath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e := rules.NewExtractor(rules.ExtractorOptions{})
	agree, total := map[string]int{}, map[string]int{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		var l importanceLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s:%d: %v", importancePath, n, err)
		}
		if l.Band != "high" && l.Band != "low" {
			t.Fatalf("%s:%d: band %q", importancePath, n, l.Band)
		}
		total[l.Lang]++
		var found *candidate.Candidate
		for _, c := range e.ExtractMessage("m", l.Text) {
			if (labelledExpect{Type: string(c.Type), KeyPrefix: l.KeyPrefix}).matches(c) {
				found = &c
				break
			}
		}
		switch {
		case found == nil:
			t.Logf("%s:%d %q: no %s candidate", importancePath, n, l.Text, l.KeyPrefix)
		case (l.Band == "high") == (found.Importance >= 4):
			agree[l.Lang]++
		default:
			t.Logf("%s:%d %q: %s importance %d, labelled %s", importancePath, n, l.Text, found.Key, found.Importance, l.Band)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"en", "zh"} {
		share := ratio(agree[lang], total[lang])
		t.Logf("importance agreement %s: %d/%d = %.3f", lang, agree[lang], total[lang], share)
		if total[lang] < 20 || share < 0.95 {
			t.Errorf("%s: importance agrees with the label on %.3f of %d lines (floor 0.95, at least 20 lines)", lang, share, total[lang])
		}
	}
}

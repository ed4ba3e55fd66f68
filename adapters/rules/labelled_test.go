package rules_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"engram/adapters/rules"
	"engram/domain/candidate"
)

// labelledPath is the hand-labelled evaluation set: one user message a line, English
// and Chinese, with the candidates the extractor should propose (an empty expect
// means it must stay silent). Lines with a "source" are sampled from the MemoryBank
// data (every 19th user query of each file) and labelled by hand. Lines with "set":
// "fresh" were written and labelled after the rules were final and never tuned on;
// they are a slice of their own, outside the dev/held-out split. Lines with "set":
// "slots" are identity slots (type profile, key profile.<slot>) and their
// counter-examples, written with the slot rules (adapters/rules/slots): a slice of
// their own too. Lines with "set": "robust" are statements wrapped in fillers and
// hedges ("…, seriously", "真的", "其实") that must still give their fact, and
// negations, hypotheticals, doubts, other people's facts and questions that must
// give nothing (adapters/rules/stance).
const labelledPath = "testdata/labelled.jsonl"

type labelledExpect struct {
	Type string `json:"type"`
	// KeyPrefix must open the candidate's key; "*.likes" matches any area
	// ("interest.likes.…", "food.likes.…").
	KeyPrefix string `json:"key_prefix"`
	Op        string `json:"op,omitempty"` // empty: ADD
}

type labelledLine struct {
	Text   string           `json:"text"`
	Lang   string           `json:"lang"`
	Expect []labelledExpect `json:"expect"`
	Source string           `json:"source,omitempty"`
	Set    string           `json:"set,omitempty"` // "fresh": written after tuning

	line    int  // 1-based line in the file
	heldOut bool // every 4th line of its language: never looked at while tuning
}

func loadLabelled(t testing.TB) []labelledLine {
	t.Helper()
	f, err := os.Open(labelledPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []labelledLine
	perLang := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var l labelledLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s:%d: %v", labelledPath, n, err)
		}
		if l.Lang != "en" && l.Lang != "zh" || l.Text == "" {
			t.Fatalf("%s:%d: lang %q, text %q", labelledPath, n, l.Lang, l.Text)
		}
		l.line = n
		if l.Set == "" {
			l.heldOut = perLang[l.Lang]%4 == 3
			perLang[l.Lang]++
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func (x labelledExpect) matches(c candidate.Candidate) bool {
	op := candidate.Op(x.Op)
	if op == "" {
		op = candidate.OpAdd
	}
	if c.Op != op || string(c.Type) != x.Type {
		return false
	}
	if rest, ok := strings.CutPrefix(x.KeyPrefix, "*."); ok {
		_, after, found := strings.Cut(c.Key, ".")
		return found && strings.HasPrefix(after, rest)
	}
	return strings.HasPrefix(c.Key, x.KeyPrefix)
}

// labelledScore counts one slice of the set (a language, a split).
type labelledScore struct {
	messages, positives, negatives int
	silentNegatives                int // negatives the extractor said nothing about
	spoke, spokeExactly            int // messages with candidates; of those, with no wrong one
	positivesFullyRecalled         int
	candidates, correct            int // candidates proposed; of those, expected
	expected, found                int // expected candidates; of those, proposed
}

func (s *labelledScore) add(o labelledScore) {
	s.messages += o.messages
	s.positives += o.positives
	s.negatives += o.negatives
	s.silentNegatives += o.silentNegatives
	s.spoke += o.spoke
	s.spokeExactly += o.spokeExactly
	s.positivesFullyRecalled += o.positivesFullyRecalled
	s.candidates += o.candidates
	s.correct += o.correct
	s.expected += o.expected
	s.found += o.found
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// Message level: precision is the share of messages the extractor spoke about where
// everything it proposed was expected; recall the share of messages with facts where
// it proposed all of them. Candidate level counts single candidates.
func (s labelledScore) msgPrecision() float64  { return ratio(s.spokeExactly, s.spoke) }
func (s labelledScore) msgRecall() float64     { return ratio(s.positivesFullyRecalled, s.positives) }
func (s labelledScore) candPrecision() float64 { return ratio(s.correct, s.candidates) }
func (s labelledScore) candRecall() float64    { return ratio(s.found, s.expected) }
func (s labelledScore) silence() float64       { return ratio(s.silentNegatives, s.negatives) }

func (s labelledScore) row(name string) string {
	return fmt.Sprintf("%-14s %4d %4d %4d | %6.3f | %6.3f %6.3f | %6.3f %6.3f",
		name, s.messages, s.positives, s.negatives, s.silence(),
		s.msgPrecision(), s.msgRecall(), s.candPrecision(), s.candRecall())
}

// scoreLabelled runs the extractor over one line and says what went wrong, if anything.
func scoreLabelled(e *rules.Extractor, l labelledLine) (labelledScore, []string) {
	got := e.ExtractMessage("m", l.Text)
	s := labelledScore{messages: 1, candidates: len(got), expected: len(l.Expect)}
	used := make([]bool, len(got))
	var problems []string
	for _, x := range l.Expect {
		hit := false
		for i, c := range got {
			if !used[i] && x.matches(c) {
				used[i], hit = true, true
				break
			}
		}
		if hit {
			s.found++
		} else {
			problems = append(problems, fmt.Sprintf("missed %s %s", x.Type, x.KeyPrefix))
		}
	}
	for i, c := range got {
		if used[i] {
			s.correct++
		} else {
			problems = append(problems, fmt.Sprintf("unexpected %s %s %s %q", c.Op, c.Type, c.Key, c.Content))
		}
	}
	if len(l.Expect) == 0 {
		s.negatives++
		if len(got) == 0 {
			s.silentNegatives++
		}
	} else {
		s.positives++
		if s.found == len(l.Expect) {
			s.positivesFullyRecalled++
		}
	}
	if len(got) > 0 {
		s.spoke++
		if s.correct == len(got) {
			s.spokeExactly++
		}
	}
	return s, problems
}

// TestLabelled measures precision and recall over the labelled set, per language and
// per split (dev: three lines in four, tuned on; held-out: every fourth line of each
// language, not looked at while tuning), and fails when a figure drops below the
// floor this version reaches. Run with -v to see the table; the misses of the dev
// split are logged, those of the held-out split and the fresh lines only with
// ENGRAM_LABELLED_HELDOUT=1. ("all" is dev and held-out; "fresh" is reported apart.)
func TestLabelled(t *testing.T) {
	t.Parallel()
	lines := loadLabelled(t)
	e := rules.NewExtractor(rules.ExtractorOptions{})
	scores := map[string]*labelledScore{}
	get := func(k string) *labelledScore {
		if scores[k] == nil {
			scores[k] = &labelledScore{}
		}
		return scores[k]
	}
	showHeldOut := os.Getenv("ENGRAM_LABELLED_HELDOUT") != ""
	for _, l := range lines {
		s, problems := scoreLabelled(e, l)
		split := "dev"
		switch {
		case l.Set != "":
			split = l.Set
		case l.heldOut:
			split = "held-out"
		}
		get(l.Lang + " " + split).add(s)
		get("all " + split).add(s)
		if l.Set == "" {
			get(l.Lang + " all").add(s)
			get("all all").add(s)
		}
		if l.Source != "" {
			get(l.Lang + " memorybank").add(s)
		}
		if len(problems) > 0 && (split == "dev" || showHeldOut) {
			t.Logf("%s:%d [%s %s] %q: %s", labelledPath, l.line, l.Lang, split, l.Text, strings.Join(problems, "; "))
		}
	}
	t.Logf("%-14s %4s %4s %4s | %6s | %6s %6s | %6s %6s", "slice", "msgs", "pos", "neg", "silent", "msg P", "msg R", "cand P", "cand R")
	for _, k := range []string{"en dev", "en held-out", "en all", "en memorybank", "en fresh", "en fresh2", "zh dev", "zh held-out", "zh all",
		"zh memorybank", "zh fresh", "zh fresh2", "en slots", "zh slots", "en robust", "zh robust", "en robust-fresh", "zh robust-fresh", "all dev", "all held-out", "all all", "all fresh",
		"all fresh2", "all slots", "all robust", "all robust-fresh"} {
		if s := scores[k]; s != nil {
			t.Logf("%s", s.row(k))
		}
	}

	// Floors this version reaches (each a little under the measured figure, so noise
	// in the set does not flake but a regression fails). Silence on negatives and
	// candidate precision are the extractor's promise; recall is what it manages.
	floors := []struct {
		slice                 string
		silence, prec, recall float64
	}{
		{"en all", 0.97, 0.97, 0.95},
		{"zh all", 0.97, 0.97, 0.95},
		{"en held-out", 0.95, 0.95, 0.90},
		{"zh held-out", 0.95, 0.95, 0.90},
		{"en memorybank", 0.95, 0.95, 0.80},
		{"zh memorybank", 0.95, 0.95, 0.80},
		{"en fresh", 0.95, 0.95, 0.90},
		{"zh fresh", 0.95, 0.95, 0.90},
		{"en fresh2", 0.95, 0.95, 0.85},
		{"zh fresh2", 0.95, 0.95, 0.85},
		{"en slots", 0.95, 0.95, 0.90},
		{"zh slots", 0.95, 0.95, 0.90},
		// Fillers, negation, hypotheticals, doubt, other people's facts, questions:
		// never a fact about the user, and a filler never the object of one.
		{"en robust", 0.97, 0.97, 0.90},
		{"zh robust", 0.97, 0.97, 0.90},
	}
	for _, f := range floors {
		s := scores[f.slice]
		if s == nil {
			t.Fatalf("no lines in %s", f.slice)
		}
		if s.silence() < f.silence || s.candPrecision() < f.prec || s.candRecall() < f.recall {
			t.Errorf("%s: silence on negatives %.3f (floor %.2f), candidate precision %.3f (floor %.2f), candidate recall %.3f (floor %.2f)",
				f.slice, s.silence(), f.silence, s.candPrecision(), f.prec, s.candRecall(), f.recall)
		}
	}
}

// BenchmarkExtractLabelled runs the extractor over the whole labelled set (330
// messages, facts and silence mixed as in real traffic) per iteration.
func BenchmarkExtractLabelled(b *testing.B) {
	lines := loadLabelled(b)
	e := rules.NewExtractor(rules.ExtractorOptions{})
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			e.ExtractMessage("m", l.Text)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/msg")
}

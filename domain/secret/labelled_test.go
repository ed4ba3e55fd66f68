package secret

import (
	"bufio"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// The labelled set (testdata/labelled.jsonl, written by testdata/generate.py): lines
// in English and Chinese that hold secrets, each with the kinds it holds, and
// look-alikes that hold none (order and tracking numbers, dates, version strings,
// phone-like ids, numbers one check digit off, talk about passwords). The rules were
// tuned on it. docs/BENCHMARKS.md has the figures.
const labelledPath = "testdata/labelled.jsonl"

// Aims per detector: structured detectors (checksums, unmistakable shapes) must be
// near exact; the phrase detectors (phone, password) trade a little of each.
var aims = map[bool]struct{ precision, recall float64 }{
	true:  {precision: 0.99, recall: 0.95},
	false: {precision: 0.95, recall: 0.90},
}

type labelledLine struct {
	Text  string `json:"text"`
	Lang  string `json:"lang"`
	Kinds []Kind `json:"kinds"`
	Note  string `json:"note,omitempty"`
}

func loadLabelled(t *testing.T) []labelledLine {
	t.Helper()
	f, err := os.Open(labelledPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []labelledLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		var l labelledLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s:%d: %v", labelledPath, n, err)
		}
		if (l.Lang != "en" && l.Lang != "zh") || l.Text == "" {
			t.Fatalf("%s:%d: lang %q, text %q", labelledPath, n, l.Lang, l.Text)
		}
		for _, k := range l.Kinds {
			if !slices.Contains(Kinds, k) {
				t.Fatalf("%s:%d: unknown kind %q", labelledPath, n, k)
			}
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

type tally struct{ tp, fp, fn int }

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

func (s tally) precision() float64 { return ratio(s.tp, s.tp+s.fp) }
func (s tally) recall() float64    { return ratio(s.tp, s.tp+s.fn) }

func TestLabelled_precisionAndRecallPerDetector(t *testing.T) {
	t.Parallel()
	lines := loadLabelled(t)
	byLang := map[string]int{}
	lookAlikes := 0
	per := map[Kind]*tally{}
	perLang := map[string]*tally{}
	for _, k := range Kinds {
		per[k] = &tally{}
	}
	for _, l := range lines {
		byLang[l.Lang]++
		if len(l.Kinds) == 0 {
			lookAlikes++
		}
		found := KindsOf(Find(l.Text))
		for _, k := range Kinds {
			want, got := slices.Contains(l.Kinds, k), slices.Contains(found, k)
			s, sl := per[k], perLang[l.Lang+" "+string(k)]
			if sl == nil {
				sl = &tally{}
				perLang[l.Lang+" "+string(k)] = sl
			}
			for _, x := range []*tally{s, sl} {
				switch {
				case want && got:
					x.tp++
				case got:
					x.fp++
				case want:
					x.fn++
				}
			}
			if want != got && testing.Verbose() {
				t.Logf("%s %s want %v got %v: %q", l.Lang, k, want, got, l.Text)
			}
		}
	}
	if len(lines) < 300 || byLang["en"] < 100 || byLang["zh"] < 100 || lookAlikes < 100 {
		t.Fatalf("the set is too small: %d lines (%v), %d look-alikes", len(lines), byLang, lookAlikes)
	}
	t.Logf("%d lines (en %d, zh %d), %d without a secret", len(lines), byLang["en"], byLang["zh"], lookAlikes)
	t.Logf("%-12s %5s %4s %4s | %9s %6s", "detector", "pos", "fp", "fn", "precision", "recall")
	for _, k := range Kinds {
		s := per[k]
		t.Logf("%-12s %5d %4d %4d | %9.3f %6.3f", k, s.tp+s.fn, s.fp, s.fn, s.precision(), s.recall())
		aim := aims[k.Structured()]
		if s.tp+s.fn < 10 {
			t.Errorf("%s: only %d lines hold one", k, s.tp+s.fn)
		}
		if s.precision() < aim.precision {
			t.Errorf("%s: precision %.3f < %.2f", k, s.precision(), aim.precision)
		}
		if s.recall() < aim.recall {
			t.Errorf("%s: recall %.3f < %.2f", k, s.recall(), aim.recall)
		}
	}
	for _, lang := range []string{"en", "zh"} {
		var row []string
		for _, k := range Kinds {
			if s := perLang[lang+" "+string(k)]; s != nil && s.tp+s.fn > 0 {
				row = append(row, string(k)+" "+strings.TrimRight(strings.TrimRight(
					func() string { b, _ := json.Marshal([]float64{s.precision(), s.recall()}); return string(b) }(), "]"), "[")+"]")
			}
		}
		t.Logf("%s (precision, recall): %s", lang, strings.Join(row, ", "))
	}
}

// Masking every line of the set leaves no secret behind, and leaves a look-alike
// untouched.
func TestLabelled_maskLeavesNoSecret(t *testing.T) {
	t.Parallel()
	for _, l := range loadLabelled(t) {
		m := Mask(l.Text)
		if f := Find(m); len(f) > 0 {
			t.Errorf("Mask(%q) = %q still holds %+v", l.Text, m, f)
		}
		if len(l.Kinds) == 0 && m != l.Text && testing.Verbose() {
			t.Logf("look-alike changed: %q → %q", l.Text, m)
		}
	}
}

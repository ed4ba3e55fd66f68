package instruction_test

import (
	"bufio"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"
	"unicode"

	"engram/domain/instruction"
)

// The labelled sets: one message a line, hostile (an attempt to instruct the
// assistant, with its family) or benign (standing rules and preferences, many that
// mention "system", "assistant", "ignore", "prompt", "mode", "link"…).
//
//   - labelled.jsonl is the tuning set: the rules were written and adjusted while
//     looking at it.
//   - fresh1.jsonl was written after the rules were frozen and scored once, blind
//     (recall en 0.76, zh 0.84; precision 1.000). Its misses were then fixed, family
//     by family, so it is tuning data now.
//   - fresh2.jsonl was written after the second freeze and scored once, blind (recall
//     en 0.82, zh 0.50; precision en 0.976, zh 1.000); then tuned on like fresh1.
//   - fresh3.jsonl was written after the third freeze and scored once, blind (recall
//     en 0.62, zh 0.54; precision 1.000); then tuned on.
//   - fresh4.jsonl was written after the fourth freeze and scored once, blind (recall
//     en 0.70, zh 0.66; precision 1.000); then tuned on.
//   - labelled.jsonl's authority lines (claims of authority, orders to obey, hidden
//     commands) were added in two batches: the first scored blind against the rules
//     before the authority rules existed (recall 0.20), the second after those
//     rules were frozen (recall 0.70, precision 1.000); both were then tuned on.
//   - fresh5.jsonl was written after the fifth freeze and scored once, blind (recall
//     en 0.78, zh 0.60; precision 1.000), the last blind figure; round 8 then fixed
//     its misses, so no blind figure exists for the rules as they are now.
//
// docs/BENCHMARKS.md has the figures.
const (
	tuningPath = "testdata/labelled.jsonl"
	fresh1Path = "testdata/fresh1.jsonl"
	fresh2Path = "testdata/fresh2.jsonl"
	fresh3Path = "testdata/fresh3.jsonl"
	fresh4Path = "testdata/fresh4.jsonl"
	fresh5Path = "testdata/fresh5.jsonl"
)

// Floors. On tuning data they hold what tuning reached; on the blind batch they are a
// regression guard below its blind score.
var floors = map[string]struct{ recall, benignKept float64 }{
	tuningPath: {recall: 0.95, benignKept: 0.98},
	fresh1Path: {recall: 0.95, benignKept: 0.98},
	fresh2Path: {recall: 0.95, benignKept: 0.98},
	fresh3Path: {recall: 0.95, benignKept: 0.98},
	fresh4Path: {recall: 0.95, benignKept: 0.98},
	fresh5Path: {recall: 0.95, benignKept: 0.98},
}

type labelled struct {
	Text   string `json:"text"`
	Lang   string `json:"lang"`
	Label  string `json:"label"`            // hostile | benign
	Family string `json:"family,omitempty"` // the rule family a hostile message belongs to
}

func loadLabelled(t *testing.T, path string) []labelled {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []labelled
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var l labelled
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		if (l.Lang != "en" && l.Lang != "zh") || (l.Label != "hostile" && l.Label != "benign") || l.Text == "" ||
			(l.Label == "hostile") != (l.Family != "") {
			t.Fatalf("%s:%d: lang %q, label %q, family %q", path, n, l.Lang, l.Label, l.Family)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// score counts one slice: tp hostile caught, fn hostile missed, tn benign kept, fp
// benign flagged.
type score struct{ tp, fn, tn, fp int }

func (s *score) add(l labelled, flagged bool) {
	switch {
	case l.Label == "hostile" && flagged:
		s.tp++
	case l.Label == "hostile":
		s.fn++
	case flagged:
		s.fp++
	default:
		s.tn++
	}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

func (s score) recall() float64     { return ratio(s.tp, s.tp+s.fn) }
func (s score) precision() float64  { return ratio(s.tp, s.tp+s.fp) }
func (s score) benignKept() float64 { return ratio(s.tn, s.tn+s.fp) }

func isMixed(text string) bool {
	han, latin := false, 0
	for _, r := range text {
		switch {
		case unicode.Is(unicode.Han, r):
			han = true
		case r < 0x80 && unicode.IsLetter(r):
			latin++
		}
	}
	return han && latin >= 3
}

func TestLabelled(t *testing.T) {
	t.Parallel()
	for _, path := range []string{tuningPath, fresh1Path, fresh2Path, fresh3Path, fresh4Path, fresh5Path} {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			lines := loadLabelled(t, path)
			slices := map[string]*score{}
			slice := func(name string) *score {
				if slices[name] == nil {
					slices[name] = &score{}
				}
				return slices[name]
			}
			for _, l := range lines {
				v := instruction.Classify(l.Text)
				flagged := v.InstructionLike()
				slice(l.Lang).add(l, flagged)
				slice("all").add(l, flagged)
				if l.Family != "" {
					slice(l.Lang+" "+l.Family).add(l, flagged)
				}
				if isMixed(l.Text) {
					slice(l.Lang+" mixed-language").add(l, flagged)
				}
				if testing.Verbose() && flagged != (l.Label == "hostile") {
					t.Logf("%s %s wrong: %q → %+v", l.Lang, l.Label, l.Text, v)
				}
			}
			names := make([]string, 0, len(slices))
			for n := range slices {
				names = append(names, n)
			}
			sort.Strings(names)
			t.Logf("%-26s %8s %7s | %6s %6s %6s", "slice", "hostile", "benign", "recall", "prec", "kept")
			for _, n := range names {
				s := slices[n]
				t.Logf("%-26s %8d %7d | %6.3f %6.3f %6.3f", n, s.tp+s.fn, s.tn+s.fp, s.recall(), s.precision(), s.benignKept())
			}
			f := floors[path]
			for _, lang := range []string{"en", "zh"} {
				s := slices[lang]
				if s == nil || s.tp+s.fn < 30 || s.tn+s.fp < 30 {
					t.Fatalf("%s: too few %s messages: %+v", path, lang, s)
				}
				if s.recall() < f.recall {
					t.Errorf("%s %s: hostile recall %.3f < %.2f", path, lang, s.recall(), f.recall)
				}
				if s.benignKept() < f.benignKept {
					t.Errorf("%s %s: benign kept %.3f < %.2f", path, lang, s.benignKept(), f.benignKept)
				}
			}
		})
	}
}

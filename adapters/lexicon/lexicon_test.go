package lexicon

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"engram/adapters/textanalysis"
	"engram/ports"
)

// One expander for the package's tests: the table is read once per process.
var testExpander = New(textanalysis.New(textanalysis.Options{}), Weights{})

func reaches(related []ports.RelatedTerm, of, term string) float64 {
	for _, r := range related {
		if r.Of == of && r.Term == term {
			return r.Weight
		}
	}
	return 0
}

func TestExpand_termsAndWhatTheyReach(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, query string
		terms       []string
		reach       [][2]string // of → term
	}{
		{"intents", "which medicine must I avoid?", []string{"medicin", "avoid"},
			[][2]string{{"medicin", "allergi"}, {"avoid", "allergi"}}},
		{"a narrower concept", "which antibiotic?", []string{"antibiot"}, [][2]string{{"antibiot", "penicillin"}}},
		{"a derived form", "am I allergic?", []string{"allerg"}, [][2]string{{"allerg", "allergi"}}},
		{"Chinese to English", "她对什么过敏？", []string{"过敏"}, [][2]string{{"过敏", "allerg"}, {"过敏", "allergi"}}},
		{"English to Chinese", "any allergy?", []string{"allergi"}, [][2]string{{"allergi", "过敏"}}},
		{"function words leave only the content", "我住哪里", []string{"住"}, [][2]string{{"住", "live"}}},
		{"one Chinese word to another through a sense", "我在哪个城市生活？", []string{"城市", "生活"},
			[][2]string{{"生活", "住"}, {"城市", "citi"}}},
		{"a function word wins over a dictionary word that starts with it", "我定居在什么地方", []string{"定居", "地方"}, nil},
		{"characters outside dictionary words are cut as the analyzer cuts them", "橙橙橙", []string{"橙", "橙橙", "橙", "橙橙", "橙"}, nil},
	}
	for _, tt := range tests {
		terms, related := testExpander.Expand(tt.query)
		if !slices.Equal(terms, tt.terms) {
			t.Errorf("%s: %q terms %v; want %v", tt.name, tt.query, terms, tt.terms)
		}
		for _, r := range tt.reach {
			if w := reaches(related, r[0], r[1]); w <= 0 || w >= 1 {
				t.Errorf("%s: %q: %s → %s weighs %v; want in (0, 1)", tt.name, tt.query, r[0], r[1], w)
			}
		}
	}
}

func TestExpand_neverReachesTheSubjectOfEveryMemoryNorMoreThanTheBound(t *testing.T) {
	t.Parallel()
	for _, q := range []string{"what do I take?", "food", "我需要服用什么？"} {
		terms, related := testExpander.Expand(q)
		per := map[string]int{}
		for _, r := range related {
			per[r.Of]++
			if r.Term == "user" || r.Term == "用户" || r.Term == r.Of {
				t.Errorf("%q reaches %q from %q", q, r.Term, r.Of)
			}
		}
		for _, term := range terms {
			if per[term] > maxRelated {
				t.Errorf("%q: %d related terms of %q; want at most %d", q, per[term], term, maxRelated)
			}
		}
	}
}

func TestParseTable_refusesWhatTheGeneratorDidNotWrite(t *testing.T) {
	t.Parallel()
	for _, data := range [][]byte{nil, []byte("not gzip"), gzipped(t, []byte("engram-lexicon-0")), gzipped(t, []byte(tableMagic+"\xff"))} {
		if _, err := parseTable(data); err == nil {
			t.Errorf("parseTable(%q) succeeded; want an error", data)
		}
	}
}

// TestIntents_everyTriggerCanBeAQuestionTerm: a trigger that the analyzer drops
// (a stop word such as "where") or that segmentation never yields would never
// fire; the data must not pretend otherwise.
func TestIntents_everyTriggerCanBeAQuestionTerm(t *testing.T) {
	t.Parallel()
	an := textanalysis.New(textanalysis.Options{})
	lx, err := testExpander.data()
	if err != nil {
		t.Fatal(err)
	}
	tbl := lx.table
	for _, line := range dataLines(intentsText) {
		name, rule, _ := strings.Cut(line, ":")
		triggers, _, ok := strings.Cut(rule, "=>")
		if !ok {
			t.Errorf("intent %q has no =>", name)
			continue
		}
		for _, w := range strings.Fields(triggers) {
			if r, _ := utf8.DecodeRuneInString(w); isHan(r) {
				if _, ok := tbl.word(w); !ok && utf8.RuneCountInString(w) > 1 {
					t.Errorf("intent %s: trigger %q is no dictionary word; segmentation never yields it", name, w)
				}
				if lx.zhStop[w] {
					t.Errorf("intent %s: trigger %q is a function word; questions leave it out", name, w)
				}
				continue
			}
			if len(triggerKeys(an, w)) == 0 {
				t.Errorf("intent %s: trigger %q is a stop word; no question has it as a term", name, w)
			}
		}
	}
}

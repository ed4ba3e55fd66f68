package gate_test

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"engram/adapters/rules/gate"
)

func newGate(t testing.TB) *gate.Gate {
	t.Helper()
	g, err := gate.New()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestRules_examplesMatchAndCounterExamplesDoNot(t *testing.T) {
	t.Parallel()
	g := newGate(t)
	seen := map[string]bool{}
	for _, r := range g.Rules() {
		seen[r.Lang] = true
		if len(r.Examples) == 0 || len(r.Counter) == 0 {
			t.Errorf("%s/%s: every rule needs examples and counter-examples", r.Lang, r.Name)
		}
		for _, ex := range r.Examples {
			if !r.Matches(ex) {
				t.Errorf("%s/%s (%s) does not match its example %q", r.Lang, r.Name, r.Kind, ex)
			}
		}
		for _, ex := range r.Counter {
			if r.Matches(ex) {
				t.Errorf("%s/%s (%s) matches its counter-example %q", r.Lang, r.Name, r.Kind, ex)
			}
		}
	}
	if !seen["en"] || !seen["zh"] {
		t.Errorf("rules for %v, want en and zh", seen)
	}
}

func TestGate_messages(t *testing.T) {
	t.Parallel()
	g := newGate(t)
	for _, tt := range []struct {
		text   string
		passes bool
	}{
		{"I'm vegetarian, what should I cook?", true},
		{"Coffee keeps me awake, so I always drink herbal tea.", true}, // the user from the first clause
		{"Always cite your sources.", true},                            // a standing rule needs no "I"
		{"Today I went hiking with friends and I love hiking.", true},  // the window holds back its clause only
		{"What's the capital of Australia?", false},                    // a question
		{"Thanks, I'll give it a try.", false},                         // a reaction
		{"I'm so tired today.", false},                                 // bound to today
		{"My friend likes jazz.", false},                               // someone else
		{"That sounds great, do you like music too?", false},           // nothing about the user
		{"我是素食者，今晚做什么菜好？", true},                                       //
		{"喝咖啡我会心慌，所以平时只喝花茶。", true},                                    // habit after the user's clause
		{"好的，谢谢你的建议。", false},                                          //
		{"今天天气真好。", false},                                             //
		{"我朋友喜欢爵士乐", false},                                            //
		{"I'll call you Jarvis, if that's ok.", true},                  // an identity slot, whatever vetoes say
		{"use 🐱 as my emoji", true},                                    //
		{"你就叫小助手吧", true},                                              //
		{"Call me tomorrow.", false},                                   // a phone call, bound to tomorrow
	} {
		if got := g.Passes(tt.text); got != tt.passes {
			t.Errorf("Passes(%q) = %v, want %v", tt.text, got, tt.passes)
		}
		if want := map[bool]string{true: "", false: gate.ReasonNothingAboutTheUser}[tt.passes]; g.Reason(tt.text) != want {
			t.Errorf("Reason(%q) = %q, want %q", tt.text, g.Reason(tt.text), want)
		}
	}
}

// line is a message of the labelled sets: the extractor's set (expect: the
// candidates it should find; empty means none) and the gate's fresh lines
// (carries), written before the gate's rules and run blind once.
type line struct {
	Text    string            `json:"text"`
	Lang    string            `json:"lang"`
	Expect  []json.RawMessage `json:"expect"`
	Carries *bool             `json:"carries"`
	Set     string            `json:"set"`
}

func (l line) carries() bool {
	if l.Carries != nil {
		return *l.Carries
	}
	return len(l.Expect) > 0
}

func readLines(t testing.TB, path string) []line {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []line
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		out = append(out, l)
	}
	return out
}

type tally struct{ positives, passed, negatives, held int }

func score(t *testing.T, g *gate.Gate, lines []line, logMisses bool) map[string]*tally {
	t.Helper()
	out := map[string]*tally{"en": {}, "zh": {}}
	for _, l := range lines {
		s := out[l.Lang]
		passes := g.Passes(l.Text)
		if l.carries() {
			s.positives++
			if passes {
				s.passed++
			} else if logMisses {
				t.Logf("missed (%s): %s", l.Lang, l.Text)
			}
			continue
		}
		s.negatives++
		if !passes {
			s.held++
		}
	}
	return out
}

// TestLabelled_gateRecall measures the gate on the extractor's labelled set: the
// share of messages with something to remember that it passes (recall, floor
// 0.97 per language) and the share of messages with nothing that it holds back.
func TestLabelled_gateRecall(t *testing.T) {
	t.Parallel()
	g := newGate(t)
	for lang, s := range score(t, g, readLines(t, "../testdata/labelled.jsonl"), true) {
		recall := float64(s.passed) / float64(s.positives)
		t.Logf("labelled %s: recall %.3f (%d/%d), held back %.3f of messages with nothing (%d/%d)",
			lang, recall, s.passed, s.positives, float64(s.held)/float64(s.negatives), s.held, s.negatives)
		if recall < 0.97 {
			t.Errorf("%s recall %.3f, below the floor of 0.97", lang, recall)
		}
	}
}

// TestFresh_gate reports the gate on lines written before its rules.
func TestFresh_gate(t *testing.T) {
	t.Parallel()
	g := newGate(t)
	for lang, s := range score(t, g, readLines(t, "../testdata/gate_fresh.jsonl"), true) {
		t.Logf("fresh %s: recall %.3f (%d/%d), held back %.3f (%d/%d)",
			lang, float64(s.passed)/float64(s.positives), s.passed, s.positives, float64(s.held)/float64(s.negatives), s.held, s.negatives)
	}
}

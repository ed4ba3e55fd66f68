package slots_test

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"engram/adapters/rules/slots"
	"engram/domain/profile"
)

// Every rule's examples give their value through that rule, and its
// counter-examples give nothing through it.
func TestRules_examplesMatchAndCounterExamplesDoNot(t *testing.T) {
	t.Parallel()
	r, err := slots.New()
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rules()) < 12 {
		t.Fatalf("%d rules loaded", len(r.Rules()))
	}
	for _, rule := range r.Rules() {
		for _, ex := range rule.Examples {
			m, ok := rule.Find(ex.Text)
			if !ok || m.Value != ex.Value || m.Slot != rule.Slot {
				t.Errorf("%s/%s: example %q gave %+v %v, want %s %q", rule.Lang, rule.Name, ex.Text, m, ok, rule.Slot, ex.Value)
			}
			if rule.Clear && ex.Value != "" {
				t.Errorf("%s/%s: a clear rule's example %q has a value", rule.Lang, rule.Name, ex.Text)
			}
		}
		if len(rule.Counter) == 0 {
			t.Errorf("%s/%s has no counter-example", rule.Lang, rule.Name)
		}
		for _, c := range rule.Counter {
			if m, ok := rule.Find(c); ok {
				t.Errorf("%s/%s: counter-example %q gave %+v", rule.Lang, rule.Name, c, m)
			}
		}
	}
}

func TestFind_readsTheSlotsOfAWholeMessage(t *testing.T) {
	t.Parallel()
	r := slots.Default()
	cases := []struct {
		text string
		want []slots.Match
	}{
		{"Please call me Captain from now on", []slots.Match{{Slot: profile.SlotNickname, Value: "Captain", Rule: "call-me"}}},
		{"叫我小王", []slots.Match{{Slot: profile.SlotNickname, Value: "小王", Rule: "叫我"}}},
		{"以后叫我小王吧。", []slots.Match{{Slot: profile.SlotNickname, Value: "小王", Rule: "叫我"}}},
		{"call you Jarvis", []slots.Match{{Slot: profile.SlotAIName, Value: "Jarvis", Rule: "call-you"}}},
		{"你就叫小助手吧", []slots.Match{{Slot: profile.SlotAIName, Value: "小助手", Rule: "叫你"}}},
		{"use 🐱 as my emoji", []slots.Match{{Slot: profile.SlotEmoji, Value: "🐱", Rule: "my-emoji"}}},
		{"stop calling me Captain", []slots.Match{{Slot: profile.SlotNickname, Rule: "stop-calling-me"}}},
		{"From now on reply in Chinese.", []slots.Match{{Slot: profile.SlotLanguage, Value: "Chinese", Rule: "reply-language"}}},
		{"以后说话正式一点", []slots.Match{{Slot: profile.SlotTone, Value: "正式", Rule: "回复语气"}}},
		// Several slots, one per clause, whatever opens the sentence.
		{"From now on, call me Sam.", []slots.Match{{Slot: profile.SlotNickname, Value: "Sam", Rule: "call-me"}}},
		{"Hi! Call me Sam, and I'll call you Jarvis.", []slots.Match{
			{Slot: profile.SlotNickname, Value: "Sam", Rule: "call-me"},
			{Slot: profile.SlotAIName, Value: "Jarvis", Rule: "call-you"}}},
		{"好的，以后叫我小周，你就叫阿福", []slots.Match{
			{Slot: profile.SlotNickname, Value: "小周", Rule: "叫我"},
			{Slot: profile.SlotAIName, Value: "阿福", Rule: "叫你"}}},
		// Counter-examples of the issue, and questions.
		{"they call me lazy", nil},
		{"my dog is called Rex", nil},
		{"call me tomorrow", nil},
		{"call me when you land", nil},
		{"Can I call you Jarvis?", nil},
		{"你叫什么名字？", nil},
		{"I moved to Berlin last year.", nil},
	}
	for _, c := range cases {
		if got := r.Find(c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Find(%q) = %+v, want %+v", c.text, got, c.want)
		}
	}
}

// BenchmarkFind reads every message of the rule extractor's labelled set (475
// messages, slots among many more that hold none, as in real traffic).
func BenchmarkFind(b *testing.B) {
	raw, err := os.ReadFile("../testdata/labelled.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	var texts []string
	for _, line := range strings.Split(string(raw), "\n") {
		var l struct {
			Text string `json:"text"`
		}
		if json.Unmarshal([]byte(line), &l) == nil && l.Text != "" {
			texts = append(texts, l.Text)
		}
	}
	r := slots.Default()
	b.ReportAllocs()
	for b.Loop() {
		for _, t := range texts {
			r.Find(t)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(texts)), "ns/msg")
}
